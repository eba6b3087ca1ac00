#include "io/logs/ScalarLog.h"

#include <QMap>
#include <algorithm>

namespace rankscope {

void ScalarLog::add(const QString &tag, const QString &source, const QList<ScalarPoint> &points)
{
    if (points.isEmpty())
        return;
    auto it = std::lower_bound(m_series.begin(), m_series.end(), tag, [](const ScalarSeries &s, const QString &t) { return s.tag < t; });
    if (it == m_series.end() || it->tag != tag)
        it = m_series.insert(it, ScalarSeries{tag, {}, {}});
    if (!it->sources.contains(source))
        it->sources << source;
    QMap<qint64, double> byStep;
    for (const ScalarPoint &p : std::as_const(it->points))
        byStep.insert(p.step, p.value);
    for (const ScalarPoint &p : points)
        byStep.insert(p.step, p.value); // the later write of a step wins
    it->points.clear();
    it->points.reserve(byStep.size());
    for (auto p = byStep.cbegin(); p != byStep.cend(); ++p)
        it->points.append({p.key(), p.value()});
}

const ScalarSeries *ScalarLog::find(const QString &tag) const
{
    for (const ScalarSeries &s : m_series)
        if (s.tag == tag)
            return &s;
    return nullptr;
}

} // namespace rankscope
