#include "analysis/results/MatrixResult.h"

#include <algorithm>

namespace rankscope {

QString stepLabel(qint64 step, bool unnumbered)
{
    return unnumbered ? QStringLiteral("final") : QString::number(step);
}

void sortResults(QList<MatrixResult> &results)
{
    std::stable_sort(results.begin(), results.end(), [](const MatrixResult &a, const MatrixResult &b) {
        if (a.step != b.step)
            return a.step < b.step;
        if (const auto c = a.identity() <=> b.identity(); c != 0)
            return c < 0;
        if (a.head != b.head)
            return a.head < b.head;
        return a.tensor < b.tensor;
    });
}

QList<MatrixResult> takeHeadRows(QList<MatrixResult> &results)
{
    QList<MatrixResult> heads;
    if (std::none_of(results.begin(), results.end(), [](const MatrixResult &r) { return r.isHead(); }))
        return heads;
    QList<MatrixResult> whole;
    for (MatrixResult &r : results)
        (r.isHead() ? heads : whole).append(std::move(r));
    results = std::move(whole);
    return heads;
}

void applyEnergy(QList<MatrixResult> &results, double energy)
{
    for (MatrixResult &r : results)
        applyEnergy(r.metrics, r.singularValues, r.rows, r.cols, energy);
}

} // namespace rankscope
