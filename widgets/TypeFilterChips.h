// A row of coloured, checkable chips, one per matrix type in the run: the type filter every
// view follows. Clicking a chip does what clicking the type in a legend does.
#pragma once

#include "figures/ViewState.h"

#include <QWidget>

class QToolButton;
class QHBoxLayout;

namespace rankscope {

class TypeFilterChips : public QWidget {
    Q_OBJECT
public:
    explicit TypeFilterChips(ViewState *state, QWidget *parent = nullptr);
    QToolButton *chip(MatrixType type) const { return m_chips.value(type); }

private:
    void rebuild();
    void sync();
    // The chips' look from the application's palette (light or dark theme).
    void restyle();

    ViewState *m_state;
    QHBoxLayout *m_layout;
    QHash<MatrixType, QToolButton *> m_chips;
};

} // namespace rankscope
