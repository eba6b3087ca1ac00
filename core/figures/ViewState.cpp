#include "figures/ViewState.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rankscope {

ViewState::ViewState(QObject *parent) : QObject(parent) { qRegisterMetaType<rankscope::MatrixKey>(); }

void ViewState::setRun(const RunAnalysis &run, const QString &name)
{
    // The same run again (a watched folder that grew) keeps the user's step and selection.
    ShownRun &first = m_runs.first();
    const bool sameRun = name == first.name && !first.run.results.isEmpty();
    // The same run read again (an option that re-reads its checkpoints) arrives a checkpoint at a
    // time: the step the user chose is held until its results are back, not moved to the first
    // step read (the random initialisation).
    m_holdStep = sameRun && run.results.isEmpty() && !m_followLastStep;
    first.run = run;
    first.name = name;
    applyEnergy(first.run.results, m_energy);
    applyEnergy(first.run.headResults, m_energy);
    if (!sameRun) {
        m_followLastStep = true;
        m_highlighted.reset();
    }
    reindex();
    if (!sameRun)
        emit runReplaced();
    emit resultsChanged();
    emit currentStepChanged(m_currentStep);
}

void ViewState::addResults(const QList<MatrixResult> &results)
{
    if (results.isEmpty())
        return;
    QList<MatrixResult> added = results;
    applyEnergy(added, m_energy);
    // Per-head rows (--heads) are kept apart: no whole-matrix figure may take them.
    QList<MatrixResult> heads = takeHeadRows(added);
    m_runs.first().run.results.append(added);
    sortResults(m_runs.first().run.results);
    m_runs.first().run.headResults.append(heads);
    sortResults(m_runs.first().run.headResults);
    const qint64 before = m_currentStep;
    reindex();
    emit resultsChanged();
    if (m_currentStep != before)
        emit currentStepChanged(m_currentStep);
}

void ViewState::index(ShownRun &run)
{
    QSet<qint64> steps;
    run.cells.clear();
    run.layers.clear();
    run.types.clear();
    QHash<QString, QSet<int>> layers;
    const QList<MatrixResult> &results = run.run.results;
    for (qsizetype i = 0; i < results.size(); ++i) {
        const MatrixResult &r = results[i];
        steps.insert(r.step);
        layers[r.block].insert(r.layer);
        run.types[r.block].insert(r.type);
        run.cells[{r.step, r.block, r.layer, r.type}].append(i);
    }
    run.steps = QList<qint64>(steps.begin(), steps.end());
    std::sort(run.steps.begin(), run.steps.end());
    for (auto it = layers.begin(); it != layers.end(); ++it) {
        QList<int> sorted(it.value().begin(), it.value().end());
        std::sort(sorted.begin(), sorted.end());
        run.layers.insert(it.key(), sorted);
    }
}

void ViewState::reindex()
{
    // Blocks, experts and types are those of every run, so what only a compared run has still gets
    // its colour, chip and choice.
    QSet<QString> blocks, experts;
    QSet<MatrixType> types;
    for (ShownRun &run : m_runs) {
        index(run);
        for (const MatrixResult &r : run.run.results) {
            blocks.insert(r.block);
            types.insert(r.type);
            if (!r.expert.isEmpty())
                experts.insert(r.expert);
        }
    }
    // Blocks in the order a model runs them (encoder before decoder, each before its cross-attention),
    // then by name.
    m_blocks = QStringList(blocks.begin(), blocks.end());
    static const QStringList order = {"", "encoder", "decoder", "text", "vision", "audio"};
    auto rank = [](const QString &block) {
        const qsizetype i = order.indexOf(block.section(QLatin1Char('-'), 0, 0));
        return std::pair{i < 0 ? order.size() : i, block};
    };
    std::sort(m_blocks.begin(), m_blocks.end(), [&](const QString &a, const QString &b) { return rank(a) < rank(b); });
    if (!m_blocks.contains(m_block))
        m_block = m_blocks.value(0);
    m_experts = QStringList(experts.begin(), experts.end());
    std::sort(m_experts.begin(), m_experts.end(), [](const QString &a, const QString &b) { return compareExperts(a, b) < 0; });
    if (!m_expert.expert.isEmpty() && !m_experts.contains(m_expert.expert))
        m_expert = {};
    m_types.clear();
    for (MatrixType t : kAllMatrixTypes)
        if (types.contains(t))
            m_types.append(t);
    const QList<qint64> &steps = m_runs.first().steps;
    if (!steps.isEmpty() && (m_followLastStep || (!m_holdStep && !steps.contains(m_currentStep))))
        m_currentStep = steps.last();
}

void ViewState::setBlock(const QString &block)
{
    if (block == m_block || !m_blocks.contains(block))
        return;
    m_block = block;
    emit displayChanged();
}

void ViewState::setExpert(const QString &expert)
{
    if (expert == m_expert.expert || (!expert.isEmpty() && !m_experts.contains(expert)))
        return;
    m_expert.expert = expert;
    emit displayChanged();
}

MatrixFilter ViewState::filterAt(int run, LayerView view) const
{
    const QList<int> layers = visibleLayersAt(run, view);
    return {m_block, layers.isEmpty() ? LayerRange{1, 0} : LayerRange{layers.first(), layers.last()}, m_expert};
}

QList<MatrixType> ViewState::typesIn(const QString &block) const
{
    QSet<MatrixType> types;
    for (const ShownRun &run : m_runs)
        types.unite(run.types.value(block));
    QList<MatrixType> out;
    for (MatrixType t : m_types)
        if (types.contains(t))
            out.append(t);
    return out;
}

MatrixCell ViewState::cell(int run, qint64 step, const QString &block, int layer, MatrixType type) const
{
    MatrixCell cell;
    const ShownRun &r = shown(run);
    for (qsizetype i : r.cells.value({step, block, layer, type})) {
        const MatrixResult &m = r.run.results[i];
        if (m_expert.accepts(m.expert))
            cell.matrices.append(&m);
    }
    return cell;
}

const MatrixResult *ViewState::find(const MatrixKey &key) const
{
    if (key.run < 0 || key.run >= m_runs.size())
        return nullptr;
    const ShownRun &r = m_runs[key.run];
    for (qsizetype i : r.cells.value({key.step, key.id.block, key.id.layer, key.id.type}))
        if (r.run.results[i].expert == key.id.expert)
            return &r.run.results[i];
    return nullptr;
}

void ViewState::setEnergy(double energy)
{
    if (qFuzzyCompare(energy, m_energy))
        return;
    m_energy = energy;
    for (ShownRun &run : m_runs) {
        applyEnergy(run.run.results, m_energy);
        applyEnergy(run.run.headResults, m_energy);
    }
    emit resultsChanged();
}

void ViewState::addComparedRun(const RunAnalysis &run, const QString &name)
{
    ShownRun shownRun;
    shownRun.name = name;
    shownRun.run = run;
    applyEnergy(shownRun.run.results, m_energy);
    applyEnergy(shownRun.run.headResults, m_energy);
    m_runs.append(std::move(shownRun));
    reindex();
    emit resultsChanged();
}

void ViewState::removeComparedRun(int index)
{
    if (index < 1 || index >= m_runs.size())
        return;
    const bool logged = !m_runs[index].scalars.isEmpty();
    m_runs.removeAt(index);
    reindex();
    emit resultsChanged();
    if (logged)
        emit scalarsChanged(); // its curves go with it
}

void ViewState::clearComparedRuns()
{
    if (m_runs.size() == 1)
        return;
    const bool logged = std::any_of(m_runs.begin() + 1, m_runs.end(), [](const ShownRun &r) { return !r.scalars.isEmpty(); });
    m_runs.resize(1);
    reindex();
    emit resultsChanged();
    if (logged)
        emit scalarsChanged();
}

void ViewState::renameRun(int index, const QString &name)
{
    if (index < 0 || index >= m_runs.size())
        return;
    m_runs[index].name = name;
    emit resultsChanged();
}

void ViewState::setRunVisible(int index, bool visible)
{
    if (index < 0 || index >= m_runs.size())
        return;
    m_runs[index].visible = visible;
    emit displayChanged();
}

QList<int> ViewState::visibleRuns() const
{
    QList<int> out;
    for (int i = 0; i < runCount(); ++i)
        if (m_runs[i].visible)
            out.append(i);
    return out;
}

qint64 ViewState::stepAt(int index) const
{
    const QList<qint64> steps = stepsAt(index);
    if (index == 0 || steps.isEmpty())
        return index == 0 ? m_currentStep : 0;
    if (!m_relativeStep) {
        const QList<qint64> first = stepsAt(0);
        if (!first.isEmpty() && m_currentStep == first.last())
            return steps.last();
        const auto after = std::upper_bound(steps.begin(), steps.end(), m_currentStep);
        return after == steps.begin() ? steps.first() : *(after - 1);
    }
    // The run's step nearest to the current one by fraction of each run's length.
    const double target = stepFraction(0, m_currentStep);
    qint64 best = steps.first();
    double bestDistance = std::numeric_limits<double>::infinity();
    for (qint64 step : steps) {
        const double distance = std::abs(stepFraction(index, step) - target);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = step;
        }
    }
    return best;
}

QList<int> ViewState::layers() const
{
    QList<int> all;
    for (int run : visibleRuns())
        all += layersAt(run);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

int ViewState::deepestRun(const QString &block) const
{
    // Among the shown runs only: a hidden run is no measure for the ones on screen.
    const QList<int> shown = visibleRuns();
    int deepest = shown.value(0, 0);
    for (int run : shown)
        if (layersAt(run, block).size() > layersAt(deepest, block).size())
            deepest = run;
    return deepest;
}

bool ViewState::rangeIsEverything(const QString &block, LayerRange range) const
{
    for (int run : visibleRuns()) {
        const QList<int> layers = layersAt(run, block);
        if (!layers.isEmpty() && (range.first > layers.first() || range.last < layers.last()))
            return false;
    }
    return true;
}

QList<int> ViewState::visibleLayersAt(int index, const QString &block, LayerView view) const
{
    const QList<int> layers = layersAt(index, block);
    const LayerRange range = layerRange(view);
    if (!m_relativeDepth || rangeIsEverything(block, range)) {
        QList<int> out;
        for (int layer : layers)
            if (range.contains(layer))
                out.append(layer);
        return out;
    }
    // The share of depth the range covers on the deepest run; each run shows its layers within it.
    const int deepest = deepestRun(block);
    const QList<int> reference = layersAt(deepest, block);
    if (reference.isEmpty())
        return {};
    const double low = depthFraction(deepest, std::max(range.first, reference.first()), block);
    const double high = depthFraction(deepest, std::min(range.last, reference.last()), block);
    QList<int> out;
    for (int layer : layers)
        if (const double f = depthFraction(index, layer, block); f >= low - 1e-9 && f <= high + 1e-9)
            out.append(layer);
    return out;
}

QString ViewState::layerRangeText(LayerView view) const
{
    const LayerRange range = layerRange(view);
    if (rangeIsEverything(m_block, range))
        return {};
    const QList<int> all = layers();
    const int first = std::max(range.first, all.isEmpty() ? 0 : all.first());
    const int last = std::min(range.last, all.isEmpty() ? 0 : all.last());
    if (m_relativeDepth && visibleRuns().size() > 1) {
        const int deepest = deepestRun(m_block);
        return tr("relative depth %1–%2").arg(depthFraction(deepest, first), 0, 'f', 2).arg(depthFraction(deepest, last), 0, 'f', 2);
    }
    return first == last ? tr("layer %1").arg(first) : tr("layers %1–%2").arg(first).arg(last);
}

std::optional<std::pair<double, double>> ViewState::valueRangeAtSteps(Metric metric, const QStringList &blocks,
                                                                     const QList<MatrixType> &types, bool positiveOnly,
                                                                     LayerView view) const
{
    std::optional<std::pair<double, double>> range;
    auto include = [&](double v) {
        if (!std::isfinite(v) || (positiveOnly && !(v > 0)))
            return;
        range = range ? std::pair{std::min(range->first, v), std::max(range->second, v)} : std::pair{v, v};
    };
    for (int run : visibleRuns())
        for (const QString &block : blocks)
            for (int layer : visibleLayersAt(run, block, view))
                for (MatrixType type : types) {
                    // A cell of several experts shows their mean: that is the value the scale must hold.
                    const MatrixCell c = cell(run, block, layer, type);
                    if (!c.isEmpty())
                        include(aggregateValues(c.matrices, metric).value);
                }
    return range;
}

void ViewState::setRelativeDepth(bool relative)
{
    if (relative == m_relativeDepth)
        return;
    m_relativeDepth = relative;
    emit displayChanged();
}

void ViewState::setRelativeStep(bool relative)
{
    if (relative == m_relativeStep)
        return;
    m_relativeStep = relative;
    emit displayChanged();
}

double ViewState::depthFraction(int index, int layer, const QString &block) const
{
    const QList<int> layers = layersAt(index, block);
    const int depth = layers.isEmpty() ? 1 : layers.last() + 1;
    return depth > 1 ? double(layer) / (depth - 1) : 0.0;
}

QString ViewState::stepWords(int index, qint64 step, bool onAxis) const
{
    const QList<qint64> steps = stepsAt(index);
    if (!steps.isEmpty() && step == steps.last())
        return onAxis ? tr("final step") : tr("final step %1").arg(step);
    if (index > 0 && !m_relativeStep && step != m_currentStep)
        return tr("step %1, none at %2").arg(step).arg(m_currentStep);
    return tr("step %1").arg(step);
}

double ViewState::stepFraction(int index, qint64 step) const
{
    const QList<qint64> steps = stepsAt(index);
    return steps.isEmpty() || steps.last() == 0 ? 0.0 : double(step) / double(steps.last());
}

void ViewState::setAggregate(Aggregate aggregate)
{
    if (aggregate == m_aggregate)
        return;
    m_aggregate = aggregate;
    emit displayChanged();
}

void ViewState::setShowBand(bool show)
{
    if (show == m_showBand)
        return;
    m_showBand = show;
    emit displayChanged();
}

void ViewState::setLogY(bool log)
{
    if (log == m_logY)
        return;
    m_logY = log;
    emit displayChanged();
}

void ViewState::setLogYBars(bool log)
{
    if (log == m_logYBars)
        return;
    m_logYBars = log;
    emit displayChanged();
}

void ViewState::setTypeVisible(MatrixType type, bool visible)
{
    if (visible == isTypeVisible(type))
        return;
    if (visible)
        m_hiddenTypes.remove(type);
    else
        m_hiddenTypes.insert(type);
    emit displayChanged();
}

QList<MatrixType> ViewState::visibleTypes() const
{
    QList<MatrixType> out;
    for (MatrixType t : m_types)
        if (isTypeVisible(t))
            out.append(t);
    return out;
}

void ViewState::setLayerRange(LayerRange range)
{
    if (range.first == m_layerRange.first && range.last == m_layerRange.last)
        return;
    m_layerRange = range;
    emit displayChanged();
}

LayerRange ViewState::layerRange(LayerView view) const { return m_ownLayerRanges.value(view, m_layerRange); }

void ViewState::setLayerRange(LayerView view, std::optional<LayerRange> range)
{
    if (view == LayerView::Shared) {
        setLayerRange(range.value_or(LayerRange{}));
        return;
    }
    const std::optional<LayerRange> own = m_ownLayerRanges.contains(view) ? std::optional(m_ownLayerRanges.value(view)) : std::nullopt;
    if (own.has_value() == range.has_value() && (!range || (own->first == range->first && own->last == range->last)))
        return;
    if (range)
        m_ownLayerRanges.insert(view, *range);
    else
        m_ownLayerRanges.remove(view);
    emit displayChanged();
}

void ViewState::resetLayerRanges()
{
    m_ownLayerRanges.clear();
    m_layerRange = {};
    emit displayChanged();
}

void ViewState::setScalarLogAt(int index, const ScalarLog &log)
{
    if (index < 0 || index >= m_runs.size())
        return;
    m_runs[index].scalars = log;
    emit scalarsChanged();
}

bool ViewState::hasScalars() const
{
    return std::any_of(m_runs.begin(), m_runs.end(), [](const ShownRun &r) { return !r.scalars.isEmpty(); });
}

void ViewState::setCurrentStep(qint64 step)
{
    const QList<qint64> &steps = m_runs.first().steps;
    if (!steps.contains(step) || step == m_currentStep)
        return;
    m_currentStep = step;
    m_followLastStep = step == steps.last();
    emit currentStepChanged(step);
}

void ViewState::stepBy(int delta)
{
    const QList<qint64> &steps = m_runs.first().steps;
    const qsizetype i = steps.indexOf(m_currentStep);
    if (i < 0)
        return;
    setCurrentStep(steps[std::clamp<qsizetype>(i + delta, 0, steps.size() - 1)]);
}

void ViewState::setHighlighted(std::optional<MatrixKey> key)
{
    if (key == m_highlighted)
        return;
    m_highlighted = key;
    emit highlightChanged();
}

void ViewState::setLegendPosition(LegendPosition position)
{
    if (position == m_legendPosition)
        return;
    m_legendPosition = position;
    emit displayChanged();
}

void ViewState::setDarkTheme(bool dark)
{
    if (dark == m_darkTheme)
        return;
    m_darkTheme = dark;
    emit themeChanged();
}

} // namespace rankscope
