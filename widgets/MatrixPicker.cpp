#include "MatrixPicker.h"

#include "TypeStyle.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace rankscope {

namespace {

// Sets a box's items (text, data) and selects `wanted` if present, else the first item.
void fill(QComboBox *box, const QList<std::pair<QString, QVariant>> &items, const QVariant &wanted)
{
    const QSignalBlocker block(box);
    box->clear();
    for (const auto &[text, data] : items)
        box->addItem(text, data);
    box->setCurrentIndex(std::max(0, box->findData(wanted)));
    box->setEnabled(box->count() > 1);
    // As narrow as its widest item: the style's minimum (79 pixels for "0") made the Spectrum
    // tab's header too wide for a comparison on a 1024-pixel screen.
    box->setMinimumWidth(box->sizeHint().width());
}

} // namespace

MatrixPicker::MatrixPicker(ViewState *state, QWidget *parent) : QWidget(parent), m_state(state)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_run = addBox(tr("Run"), &m_runLabel);
    m_block = addBox(tr("Block"), &m_blockLabel);
    m_type = addBox(tr("Type"), nullptr);
    m_layer = addBox(tr("Layer"), nullptr);
    m_expert = addBox(tr("Expert"), &m_expertLabel);
    m_step = addBox(tr("Step"), &m_stepLabel);
    connect(state, &ViewState::resultsChanged, this, &MatrixPicker::repopulate);
    repopulate();
}

QComboBox *MatrixPicker::addBox(const QString &label, QLabel **labelOut)
{
    auto *text = new QLabel(label, this);
    auto *box = new QComboBox(this);
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    layout()->addWidget(text);
    layout()->addWidget(box);
    if (labelOut)
        *labelOut = text;
    connect(box, &QComboBox::activated, this, &MatrixPicker::onChosen);
    return box;
}

void MatrixPicker::setStepShown(bool shown)
{
    m_stepLabel->setVisible(shown);
    m_step->setVisible(shown);
}

void MatrixPicker::setKey(const std::optional<MatrixKey> &key)
{
    m_key = key;
    m_chosen = key.has_value();
    repopulate();
}

void MatrixPicker::onChosen()
{
    if (m_filling || m_step->count() == 0)
        return;
    MatrixKey key;
    key.run = m_run->currentData().toInt();
    key.id.block = m_block->currentData().toString();
    key.id.type = MatrixType(m_type->currentData().toInt());
    key.id.layer = m_layer->currentData().toInt();
    key.id.expert = m_expert->currentData().toString();
    key.step = m_step->currentData().toLongLong();
    m_key = key;
    m_chosen = true;
    repopulate(); // a new block or type may hold other layers and experts
    if (m_key)
        emit picked(*m_key);
}

void MatrixPicker::repopulate()
{
    m_filling = true;
    // Until a matrix is chosen, the default follows the newest step as checkpoints arrive.
    MatrixKey want = m_key.value_or(MatrixKey{});
    if (!m_chosen && !m_state->steps().isEmpty())
        want.step = m_state->steps().last();

    QList<std::pair<QString, QVariant>> runs;
    for (int run = 0; run < m_state->runCount(); ++run)
        runs.append({m_state->runNameAt(run), run});
    fill(m_run, runs, want.run);
    const int run = m_run->currentData().toInt();

    QList<std::pair<QString, QVariant>> blocks;
    for (const QString &block : m_state->blocks())
        if (!m_state->layersAt(run, block).isEmpty())
            blocks.append({block.isEmpty() ? tr("model") : block, block});
    fill(m_block, blocks, want.id.block);
    const QString block = m_block->currentData().toString();

    QList<std::pair<QString, QVariant>> types;
    for (MatrixType type : m_state->typesIn(block))
        types.append({displayLabel(type), int(type)});
    fill(m_type, types, int(want.id.type));
    const MatrixType type = MatrixType(m_type->currentData().toInt());

    QList<std::pair<QString, QVariant>> layers;
    for (int layer : m_state->layersAt(run, block))
        layers.append({QString::number(layer), layer});
    fill(m_layer, layers, want.id.layer);
    const int layer = m_layer->currentData().toInt();

    QList<std::pair<QString, QVariant>> steps;
    for (qint64 step : m_state->stepsAt(run))
        steps.append({QString::number(step), step});
    // The nearest step the run has, when it lacks the one wanted.
    qint64 step = want.step;
    if (!steps.isEmpty() && m_state->stepsAt(run).indexOf(step) < 0) {
        const QList<qint64> all = m_state->stepsAt(run);
        step = *std::min_element(all.begin(), all.end(), [&](qint64 a, qint64 b) { return std::llabs(a - want.step) < std::llabs(b - want.step); });
    }
    fill(m_step, steps, step);
    step = m_step->currentData().toLongLong();

    QList<std::pair<QString, QVariant>> experts;
    for (const MatrixResult *r : m_state->cell(run, step, block, layer, type).matrices)
        if (!r->expert.isEmpty())
            experts.append({r->expert == QLatin1String(kSharedExpert) ? tr("shared") : r->expert, r->expert});
    fill(m_expert, experts, want.id.expert);

    m_runLabel->setVisible(m_state->runCount() > 1);
    m_run->setVisible(m_state->runCount() > 1);
    const bool severalBlocks = blocks.size() > 1 || (blocks.size() == 1 && !blocks.first().second.toString().isEmpty());
    m_blockLabel->setVisible(severalBlocks);
    m_block->setVisible(severalBlocks);
    m_expertLabel->setVisible(!experts.isEmpty());
    m_expert->setVisible(!experts.isEmpty());

    if (m_step->count() > 0 && m_layer->count() > 0 && m_type->count() > 0)
        m_key = MatrixKey{run, step, {block, layer, type, m_expert->currentData().toString()}};
    m_filling = false;
}

} // namespace rankscope
