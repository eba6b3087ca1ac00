#include "RunListPanel.h"

#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace rankscope {

RunListPanel::RunListPanel(ViewState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_list(new QListWidget(this)), m_remove(new QPushButton(tr("Remove"), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_list, 1);
    auto *buttons = new QHBoxLayout;
    auto *add = new QPushButton(tr("Add run…"), this);
    add->setToolTip(tr("Open another folder or results file beside this one, e.g. a deeper model or another seed"));
    buttons->addWidget(add);
    buttons->addWidget(m_remove);
    layout->addLayout(buttons);
    m_list->setToolTip(tr("Double-click a name to edit it; the check box shows or hides the run"));
    connect(add, &QPushButton::clicked, this, &RunListPanel::addRequested);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        if (row >= 1)
            m_state->removeComparedRun(row);
    });
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) { m_remove->setEnabled(row >= 1); });
    connect(m_list, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        if (m_rebuilding)
            return;
        const int row = m_list->row(item);
        if (item->text() != m_state->runNameAt(row) && !item->text().trimmed().isEmpty())
            m_state->renameRun(row, item->text().trimmed());
        if ((item->checkState() == Qt::Checked) != m_state->isRunVisible(row))
            m_state->setRunVisible(row, item->checkState() == Qt::Checked);
    });
    connect(state, &ViewState::resultsChanged, this, &RunListPanel::rebuild);
    connect(state, &ViewState::displayChanged, this, &RunListPanel::rebuild);
    rebuild();
}

void RunListPanel::rebuild()
{
    m_rebuilding = true;
    const int current = m_list->currentRow();
    m_list->clear();
    for (int i = 0; i < m_state->runCount(); ++i) {
        auto *item = new QListWidgetItem(m_state->runNameAt(i), m_list);
        item->setFlags(item->flags() | Qt::ItemIsEditable | Qt::ItemIsUserCheckable);
        item->setCheckState(m_state->isRunVisible(i) ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(i == 0 ? tr("The run the window opened (watched for new checkpoints)") : tr("A compared run"));
    }
    m_list->setCurrentRow(std::min(current, m_state->runCount() - 1));
    m_remove->setEnabled(m_list->currentRow() >= 1);
    m_rebuilding = false;
}

} // namespace rankscope
