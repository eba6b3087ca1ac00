#include "TypeFilterChips.h"

#include "TypeStyle.h"

#include <QHBoxLayout>
#include <QToolButton>

namespace rankscope {

TypeFilterChips::TypeFilterChips(ViewState *state, QWidget *parent) : QWidget(parent), m_state(state), m_layout(new QHBoxLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(4);
    connect(state, &ViewState::resultsChanged, this, &TypeFilterChips::rebuild);
    connect(state, &ViewState::displayChanged, this, &TypeFilterChips::sync);
    rebuild();
}

void TypeFilterChips::rebuild()
{
    const QList<MatrixType> types = m_state->presentTypes();
    // Sizes first: Qt 6.4 compares two empty lists with memcmp of a null pointer (UBSan stops there).
    if (types.size() == m_chips.size() && (types.isEmpty() || types == m_chips.keys())) {
        sync();
        return;
    }
    for (QToolButton *chip : m_chips)
        chip->deleteLater();
    m_chips.clear();
    for (MatrixType type : types) {
        auto *chip = new QToolButton(this);
        chip->setText(displayLabel(type));
        chip->setCheckable(true);
        chip->setToolTip(tr("Show or hide %1 in every view").arg(displayLabel(type)));
        const QColor c = typeColour(type);
        const QString text = qGray(c.rgb()) > 150 ? QStringLiteral("#222") : QStringLiteral("white");
        chip->setStyleSheet(QStringLiteral(
            "QToolButton { border: 1px solid %1; border-radius: 9px; padding: 2px 10px; color: #777; background: white; }"
            "QToolButton:checked { background: %2; color: %3; border-color: %1; }"
            // Greyed where the tab shown ignores them (MainWindow), checked or not.
            "QToolButton:disabled { background: #eeeeee; color: #9a9a9a; border-color: #cccccc; }")
                                .arg(c.darker(140).name(), c.name(), text));
        connect(chip, &QToolButton::toggled, this, [this, type](bool on) { m_state->setTypeVisible(type, on); });
        m_layout->addWidget(chip);
        m_chips.insert(type, chip);
    }
    sync();
}

void TypeFilterChips::sync()
{
    for (auto it = m_chips.begin(); it != m_chips.end(); ++it) {
        const QSignalBlocker block(it.value());
        it.value()->setChecked(m_state->isTypeVisible(it.key()));
    }
}

} // namespace rankscope
