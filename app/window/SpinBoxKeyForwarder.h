// The window's keys (←/→ for the step, Space for Play, Ctrl+E to export, any other action's
// shortcut) reach the window while one of its spin boxes has the focus: a spin box's line edit
// claims ←, → and Space for its text, so a click on a layer box's arrows or the energy box used to
// leave every step shortcut dead until the focus went elsewhere. The keys that edit a number
// (↑/↓, Page Up/Down, Home/End, digits, Backspace, Delete, copy and paste) stay with the box.
#pragma once

#include <QObject>

class QWidget;

namespace rankscope {

class SpinBoxKeyForwarder : public QObject {
    Q_OBJECT
public:
    // Watches the key presses of every spin box in `window` (those added later too).
    explicit SpinBoxKeyForwarder(QWidget *window);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_window;
};

} // namespace rankscope
