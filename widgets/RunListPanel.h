// The runs open for comparison: each with an editable name (double-click) and a check box that
// shows or hides it in every view; compared runs can be removed.
#pragma once

#include "figures/ViewState.h"

#include <QWidget>

class QListWidget;
class QPushButton;

namespace rankscope {

class RunListPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunListPanel(ViewState *state, QWidget *parent = nullptr);
    QListWidget *list() const { return m_list; }

signals:
    void addRequested();

private:
    void rebuild();

    ViewState *m_state;
    QListWidget *m_list;
    QPushButton *m_remove;
    bool m_rebuilding = false;
};

} // namespace rankscope
