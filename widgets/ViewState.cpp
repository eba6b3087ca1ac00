#include "ViewState.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rankscope {

namespace {
QString keyText(qint64 step, int layer, MatrixType type)
{
    return QStringLiteral("%1/%2/%3").arg(step).arg(layer).arg(int(type));
}
} // namespace

ViewState::ViewState(QObject *parent) : QObject(parent) { qRegisterMetaType<rankscope::MatrixKey>(); }

void ViewState::setRun(const RunAnalysis &run, const QString &name)
{
    // The same run again (a watched folder that grew) keeps the user's step and selection.
    const bool sameRun = name == m_name && !m_run.results.isEmpty();
    m_run = run;
    m_name = name;
    applyEnergy(m_run.results, m_energy);
    if (!sameRun) {
        m_followLastStep = true;
        m_highlighted.reset();
    }
    reindex();
    emit resultsChanged();
    emit currentStepChanged(m_currentStep);
}

void ViewState::addResults(const QList<MatrixResult> &results)
{
    if (results.isEmpty())
        return;
    QList<MatrixResult> added = results;
    applyEnergy(added, m_energy);
    m_run.results.append(added);
    sortResults(m_run.results);
    const qint64 before = m_currentStep;
    reindex();
    emit resultsChanged();
    if (m_currentStep != before)
        emit currentStepChanged(m_currentStep);
}

void ViewState::indexRun(const QList<MatrixResult> &results, QHash<QString, qsizetype> &index, QList<qint64> &stepList,
                         QList<int> &layerList, QSet<MatrixType> *types)
{
    QSet<qint64> steps;
    QSet<int> layers;
    index.clear();
    for (qsizetype i = 0; i < results.size(); ++i) {
        const MatrixResult &r = results[i];
        steps.insert(r.step);
        layers.insert(r.layer);
        if (types)
            types->insert(r.type);
        index.insert(keyText(r.step, r.layer, r.type), i);
    }
    stepList = QList<qint64>(steps.begin(), steps.end());
    std::sort(stepList.begin(), stepList.end());
    layerList = QList<int>(layers.begin(), layers.end());
    std::sort(layerList.begin(), layerList.end());
}

void ViewState::reindex()
{
    // Types are those of every run, so a type only a compared run has still gets its colour and chip.
    QSet<MatrixType> types;
    indexRun(m_run.results, m_index, m_steps, m_layers, &types);
    for (const ComparedRun &c : m_compared)
        for (const MatrixResult &r : c.run.results)
            types.insert(r.type);
    m_types.clear();
    for (MatrixType t : kAllMatrixTypes)
        if (types.contains(t))
            m_types.append(t);
    if (!m_steps.isEmpty() && (m_followLastStep || !m_steps.contains(m_currentStep)))
        m_currentStep = m_steps.last();
}

const MatrixResult *ViewState::find(const MatrixKey &key) const
{
    const auto it = m_index.constFind(keyText(key.step, key.layer, key.type));
    return it == m_index.constEnd() ? nullptr : &m_run.results[*it];
}

void ViewState::setEnergy(double energy)
{
    if (qFuzzyCompare(energy, m_energy))
        return;
    m_energy = energy;
    applyEnergy(m_run.results, m_energy);
    for (ComparedRun &c : m_compared)
        applyEnergy(c.run.results, m_energy);
    emit resultsChanged();
}

void ViewState::addComparedRun(const RunAnalysis &run, const QString &name)
{
    ComparedRun c{name, run, {}, {}, {}, true};
    applyEnergy(c.run.results, m_energy);
    indexRun(c.run.results, c.index, c.steps, c.layers, nullptr);
    m_compared.append(std::move(c));
    reindex();
    emit resultsChanged();
}

void ViewState::removeComparedRun(int index)
{
    if (index < 1 || index > m_compared.size())
        return;
    m_compared.removeAt(index - 1);
    reindex();
    emit resultsChanged();
}

void ViewState::clearComparedRuns()
{
    if (m_compared.isEmpty())
        return;
    m_compared.clear();
    reindex();
    emit resultsChanged();
}

QString ViewState::runNameAt(int index) const { return index == 0 ? m_name : m_compared.value(index - 1).name; }

void ViewState::renameRun(int index, const QString &name)
{
    if (index == 0)
        m_name = name;
    else if (index <= m_compared.size())
        m_compared[index - 1].name = name;
    emit resultsChanged();
}

bool ViewState::isRunVisible(int index) const { return index == 0 ? m_primaryVisible : m_compared.value(index - 1).visible; }

void ViewState::setRunVisible(int index, bool visible)
{
    if (index == 0)
        m_primaryVisible = visible;
    else if (index <= m_compared.size())
        m_compared[index - 1].visible = visible;
    emit displayChanged();
}

QList<int> ViewState::visibleRuns() const
{
    QList<int> out;
    for (int i = 0; i < runCount(); ++i)
        if (isRunVisible(i))
            out.append(i);
    return out;
}

const QList<MatrixResult> &ViewState::resultsAt(int index) const
{
    return index == 0 || index > m_compared.size() ? m_run.results : m_compared[index - 1].run.results;
}

QList<qint64> ViewState::stepsAt(int index) const { return index == 0 ? m_steps : m_compared.value(index - 1).steps; }

QList<int> ViewState::layersAt(int index) const { return index == 0 ? m_layers : m_compared.value(index - 1).layers; }

const MatrixResult *ViewState::findIn(int index, const MatrixKey &key) const
{
    if (index == 0)
        return find(key);
    if (index > m_compared.size())
        return nullptr;
    const ComparedRun &c = m_compared[index - 1];
    const auto it = c.index.constFind(keyText(key.step, key.layer, key.type));
    return it == c.index.constEnd() ? nullptr : &c.run.results[*it];
}

qint64 ViewState::stepAt(int index) const
{
    const QList<qint64> steps = stepsAt(index);
    if (index == 0 || steps.isEmpty())
        return index == 0 ? m_currentStep : 0;
    // The run's step nearest to the current one, by value or by fraction of each run's length.
    const double target = m_relativeStep ? stepFraction(0, m_currentStep) : double(m_currentStep);
    qint64 best = steps.first();
    double bestDistance = std::numeric_limits<double>::infinity();
    for (qint64 step : steps) {
        const double distance = std::abs((m_relativeStep ? stepFraction(index, step) : double(step)) - target);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = step;
        }
    }
    return best;
}

QList<int> ViewState::visibleLayersAt(int index) const
{
    if (index == 0)
        return visibleLayers();
    QList<int> out;
    // The whole range of the primary run means the whole of every run, whatever its depth.
    const bool everything = m_layers.isEmpty() || (m_layerRange.first <= m_layers.first() && m_layerRange.last >= m_layers.last());
    for (int layer : layersAt(index)) {
        if (everything) {
            out.append(layer);
            continue;
        }
        // With relative depth the layer range selects the same share of every model's depth.
        const bool inRange = m_relativeDepth ? depthFraction(index, layer) >= depthFraction(0, m_layerRange.first) - 1e-9 &&
                                                   depthFraction(index, layer) <= depthFraction(0, std::min(m_layerRange.last, m_layers.isEmpty() ? 0 : m_layers.last())) + 1e-9
                                             : m_layerRange.contains(layer);
        if (inRange)
            out.append(layer);
    }
    return out;
}

std::optional<std::pair<double, double>> ViewState::valueRangeAtSteps(Metric metric, const QList<MatrixType> &types,
                                                                     bool positiveOnly) const
{
    std::optional<std::pair<double, double>> range;
    for (int run : visibleRuns())
        for (int layer : visibleLayersAt(run))
            for (MatrixType type : types)
                if (const MatrixResult *r = findIn(run, {stepAt(run), layer, type})) {
                    const double v = metricValue(r->metrics, metric);
                    if (!std::isfinite(v) || (positiveOnly && !(v > 0)))
                        continue;
                    range = range ? std::pair{std::min(range->first, v), std::max(range->second, v)} : std::pair{v, v};
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

double ViewState::depthFraction(int index, int layer) const
{
    const QList<int> layers = layersAt(index);
    const int depth = layers.isEmpty() ? 1 : layers.last() + 1;
    return depth > 1 ? double(layer) / (depth - 1) : 0.0;
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

QList<int> ViewState::visibleLayers() const
{
    QList<int> out;
    for (int layer : m_layers)
        if (m_layerRange.contains(layer))
            out.append(layer);
    return out;
}

void ViewState::setCurrentStep(qint64 step)
{
    if (!m_steps.contains(step) || step == m_currentStep)
        return;
    m_currentStep = step;
    m_followLastStep = step == m_steps.last();
    emit currentStepChanged(step);
}

void ViewState::stepBy(int delta)
{
    const qsizetype i = m_steps.indexOf(m_currentStep);
    if (i < 0)
        return;
    setCurrentStep(m_steps[std::clamp<qsizetype>(i + delta, 0, m_steps.size() - 1)]);
}

void ViewState::setHighlighted(std::optional<MatrixKey> key)
{
    if (key == m_highlighted)
        return;
    m_highlighted = key;
    emit highlightChanged();
}

} // namespace rankscope
