#include "DemoBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>

namespace rankscope {

DemoBanner::DemoBanner(QMenu *recent, QWidget *parent) : QFrame(parent), m_recentMenu(recent), m_recent(new QToolButton(this))
{
    setObjectName(QStringLiteral("demoBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::AlternateBase);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 6, 4);
    auto *label = new QLabel(tr("<b>This is the bundled demo run</b>: a 4-layer nanoGPT, 6 checkpoints from step 0 to 1500. "
                                "Open your own run to analyse it."), this);
    label->setObjectName(QStringLiteral("demoText"));
    label->setWordWrap(true);
    layout->addWidget(label, 1);
    auto *folder = new QPushButton(tr("Open folder…"), this);
    folder->setToolTip(tr("A folder of checkpoints: PyTorch, safetensors, HDF5 or NumPy"));
    connect(folder, &QPushButton::clicked, this, &DemoBanner::openFolderRequested);
    layout->addWidget(folder);
    auto *results = new QPushButton(tr("Open results file…"), this);
    results->setToolTip(tr("A results file written by rankscope analyze"));
    connect(results, &QPushButton::clicked, this, &DemoBanner::openResultsRequested);
    layout->addWidget(results);
    m_recent->setText(tr("Recent runs"));
    m_recent->setMenu(recent);
    m_recent->setPopupMode(QToolButton::InstantPopup);
    m_recent->setToolButtonStyle(Qt::ToolButtonTextOnly);
    syncRecent();
    layout->addWidget(m_recent);
}

void DemoBanner::syncRecent() { m_recent->setEnabled(!m_recentMenu->actions().isEmpty()); }

QString DemoBanner::text() const { return findChild<QLabel *>(QStringLiteral("demoText"))->text(); }

} // namespace rankscope
