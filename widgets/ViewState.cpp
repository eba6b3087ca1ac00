#include "ViewState.h"

#include <algorithm>

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

void ViewState::reindex()
{
    QSet<qint64> steps;
    QSet<int> layers;
    QSet<MatrixType> types;
    m_index.clear();
    for (qsizetype i = 0; i < m_run.results.size(); ++i) {
        const MatrixResult &r = m_run.results[i];
        steps.insert(r.step);
        layers.insert(r.layer);
        types.insert(r.type);
        m_index.insert(keyText(r.step, r.layer, r.type), i);
    }
    m_steps = QList<qint64>(steps.begin(), steps.end());
    std::sort(m_steps.begin(), m_steps.end());
    m_layers = QList<int>(layers.begin(), layers.end());
    std::sort(m_layers.begin(), m_layers.end());
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
    emit resultsChanged();
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
