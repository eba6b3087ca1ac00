// The block the lines and bars show (encoder, decoder, decoder-cross, text, vision, …) and the
// experts every view takes (the mean over routed experts, one expert, or the shared one). Each
// control shows itself only when the runs have more than one block, or have experts.
#pragma once

#include "figures/ViewState.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace rankscope {

class BlockExpertSelector : public QWidget {
    Q_OBJECT
public:
    explicit BlockExpertSelector(ViewState *state, QWidget *parent = nullptr);
    QComboBox *blockBox() const { return m_blocks; }
    QComboBox *expertBox() const { return m_experts; }

private:
    void sync();

    ViewState *m_state;
    QLabel *m_blockLabel;
    QComboBox *m_blocks;
    QLabel *m_expertLabel;
    QComboBox *m_experts;
};

} // namespace rankscope
