#include "SpinBoxKeyForwarder.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>

namespace rankscope {

namespace {

// The spin box a key press is for: its line edit has the focus, or the box itself.
QAbstractSpinBox *spinBoxOf(QObject *object)
{
    auto *widget = qobject_cast<QWidget *>(object);
    if (!widget)
        return nullptr;
    if (auto *box = qobject_cast<QAbstractSpinBox *>(widget))
        return box;
    return qobject_cast<QAbstractSpinBox *>(widget->parentWidget());
}

bool editsTheNumber(const QKeyEvent *key)
{
    switch (key->key()) {
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
    case Qt::Key_Home:
    case Qt::Key_End:
    case Qt::Key_Backspace:
    case Qt::Key_Delete:
    case Qt::Key_Tab:
    case Qt::Key_Backtab:
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Escape:
        return true;
    default:
        break;
    }
    for (QKeySequence::StandardKey standard : {QKeySequence::Copy, QKeySequence::Paste, QKeySequence::Cut, QKeySequence::Undo,
                                               QKeySequence::Redo, QKeySequence::SelectAll})
        if (key->matches(standard))
            return true;
    // Digits, a sign or a decimal point: what a number is typed with.
    const QString text = key->text();
    return key->modifiers() == Qt::NoModifier && !text.isEmpty() && !text.at(0).isSpace() && text.at(0).isPrint();
}

} // namespace

SpinBoxKeyForwarder::SpinBoxKeyForwarder(QWidget *window) : QObject(window), m_window(window)
{
    qApp->installEventFilter(this);
}

bool SpinBoxKeyForwarder::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::KeyPress)
        return false;
    QAbstractSpinBox *box = spinBoxOf(watched);
    if (!box || box->window() != m_window)
        return false;
    auto *key = static_cast<QKeyEvent *>(event);
    if (editsTheNumber(key))
        return false;
    const QKeySequence pressed(key->keyCombination());
    for (QAction *action : m_window->findChildren<QAction *>())
        if (action->isEnabled() && action->shortcuts().contains(pressed)) {
            action->trigger();
            return true;
        }
    return false;
}

} // namespace rankscope
