#include "analysis/MatrixResult.h"

#include <algorithm>
#include <tuple>

namespace rankscope {

void sortResults(QList<MatrixResult> &results)
{
    std::stable_sort(results.begin(), results.end(), [](const MatrixResult &a, const MatrixResult &b) {
        return std::tuple(a.step, a.layer, int(a.type), a.tensor) < std::tuple(b.step, b.layer, int(b.type), b.tensor);
    });
}

void applyEnergy(QList<MatrixResult> &results, double energy)
{
    for (MatrixResult &r : results)
        applyEnergy(r.metrics, r.singularValues, r.rows, r.cols, energy);
}

} // namespace rankscope
