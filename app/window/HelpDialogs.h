// Help ▸ Keyboard shortcuts and Help ▸ Metric definitions. The shortcuts are read from the
// window's own actions, so the list is never out of step with the menus; the definitions are
// docs/metrics.md itself, compiled in, so the window and the documentation say the same.
#pragma once

#include <QString>

class QWidget;

namespace rankscope {

// An HTML table of every shortcut of the window's actions ("Ctrl+E — Export figure…") and of
// the figures' mouse and keys.
QString shortcutsHtml(const QWidget *window);
// docs/metrics.md as compiled into the program (Markdown).
QString metricDefinitionsMarkdown();

void showShortcuts(QWidget *window);
void showMetricDefinitions(QWidget *window);

} // namespace rankscope
