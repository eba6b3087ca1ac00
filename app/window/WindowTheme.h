// The window's light or dark look. It follows the desktop (the palette the application started
// with) unless the user chose one in View ▸ Theme; the choice is remembered. Figures in the window
// follow it; exported figures are light unless the export asks for dark.
#pragma once

#include <QIcon>
#include <QObject>
#include <QPalette>

class QMenu;

namespace rankscope {

class ViewState;

class WindowTheme : public QObject {
    Q_OBJECT
public:
    enum class Choice { System, Light, Dark };
    WindowTheme(ViewState *state, QObject *parent);

    // Applies the remembered choice (System the first time).
    void restore();
    void apply(Choice choice);
    // "Theme" with System / Light / Dark, in the given menu.
    void addMenu(QMenu *menu);
    // Play (a triangle) or pause (two bars) in the palette's button text colour: the styles' own
    // media icons are dark pixmaps whatever the palette.
    static QIcon playIcon(bool pause, const QPalette &palette);

private:
    bool isDark() const;

    ViewState *m_state;
    Choice m_choice = Choice::System;
    QPalette m_systemPalette; // as the desktop gave it at start
    bool m_systemDark = false;
};

} // namespace rankscope
