#include "BlockExpertSelector.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace rankscope {

BlockExpertSelector::BlockExpertSelector(ViewState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_blockLabel(new QLabel(tr(" Block "), this)), m_blocks(new QComboBox(this)),
      m_expertLabel(new QLabel(tr(" Experts "), this)), m_experts(new QComboBox(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_blockLabel);
    layout->addWidget(m_blocks);
    layout->addWidget(m_expertLabel);
    layout->addWidget(m_experts);
    m_blocks->setToolTip(tr("The stack the lines and bars show; the heatmaps show every block"));
    m_experts->setToolTip(tr("MoE layers: the mean over the routed experts (bars show their min–max), or one expert"));
    connect(m_blocks, &QComboBox::activated, this, [this] { m_state->setBlock(m_blocks->currentData().toString()); });
    connect(m_experts, &QComboBox::activated, this, [this] { m_state->setExpert(m_experts->currentData().toString()); });
    connect(state, &ViewState::resultsChanged, this, &BlockExpertSelector::sync);
    connect(state, &ViewState::displayChanged, this, &BlockExpertSelector::sync);
    sync();
}

void BlockExpertSelector::sync()
{
    const QSignalBlocker blockBlocker(m_blocks), expertBlocker(m_experts);
    m_blocks->clear();
    for (const QString &block : m_state->blocks())
        m_blocks->addItem(block.isEmpty() ? tr("(main)") : block, block);
    m_blocks->setCurrentIndex(std::max(0, m_blocks->findData(m_state->block())));
    const bool severalBlocks = m_state->blocks().size() > 1;
    m_blockLabel->setVisible(severalBlocks);
    m_blocks->setVisible(severalBlocks);

    m_experts->clear();
    m_experts->addItem(tr("Mean of routed experts"), QString());
    for (const QString &expert : m_state->experts())
        m_experts->addItem(expert == QLatin1String(kSharedExpert) ? tr("Shared expert") : tr("Expert %1").arg(expert), expert);
    m_experts->setCurrentIndex(std::max(0, m_experts->findData(m_state->expert())));
    const bool experts = !m_state->experts().isEmpty();
    m_expertLabel->setVisible(experts);
    m_experts->setVisible(experts);
}

} // namespace rankscope
