#include "TypeFilterChips.h"

#include "TypeStyle.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QToolButton>

namespace rankscope {

TypeFilterChips::TypeFilterChips(ViewState *state, QWidget *parent) : QWidget(parent), m_state(state), m_layout(new QHBoxLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(4);
    connect(state, &ViewState::resultsChanged, this, &TypeFilterChips::rebuild);
    connect(state, &ViewState::displayChanged, this, &TypeFilterChips::sync);
    connect(state, &ViewState::themeChanged, this, &TypeFilterChips::restyle);
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
        connect(chip, &QToolButton::toggled, this, [this, type](bool on) { m_state->setTypeVisible(type, on); });
        m_layout->addWidget(chip);
        m_chips.insert(type, chip);
    }
    restyle();
    sync();
}

void TypeFilterChips::restyle()
{
    // A shown type is its colour; a hidden one the window's own field colour with muted text (on
    // the dark theme too: a white chip would read as the one switched on); greyed where the tab
    // shown ignores them (MainWindow), checked or not.
    const QPalette p = QApplication::palette();
    const bool dark = p.color(QPalette::Window).lightness() < 128;
    const QColor field = p.color(QPalette::Base), muted = p.color(QPalette::PlaceholderText);
    const QColor greyed = dark ? p.color(QPalette::Window).lighter(130) : QColor(0xee, 0xee, 0xee);
    for (auto it = m_chips.begin(); it != m_chips.end(); ++it) {
        const QColor c = typeColour(it.key());
        const QString text = qGray(c.rgb()) > 150 ? QStringLiteral("#222") : QStringLiteral("white");
        const QColor edge = dark ? c : c.darker(140);
        it.value()->setStyleSheet(QStringLiteral(
            "QToolButton { border: 1px solid %1; border-radius: 9px; padding: 2px 10px; color: %4; background: %5; }"
            "QToolButton:checked { background: %2; color: %3; border-color: %1; }"
            "QToolButton:disabled { background: %6; color: %7; border-color: %7; }")
                                      .arg(edge.name(), c.name(), text, muted.name(), field.name(), greyed.name(),
                                           p.color(QPalette::Disabled, QPalette::WindowText).name()));
    }
}

void TypeFilterChips::sync()
{
    for (auto it = m_chips.begin(); it != m_chips.end(); ++it) {
        const QSignalBlocker block(it.value());
        it.value()->setChecked(m_state->isTypeVisible(it.key()));
    }
}

} // namespace rankscope
