// A matrix result whose spectrum (and so every metric) is known by hand, for the figure models'
// tests: stable rank = Σσ² / σ₁², so {1, 1} is 2, {2, 1} is 1.25 and {2, 0} is 1.
#pragma once

#include "analysis/results/MatrixResult.h"
#include "spectral/SpectralMetrics.h"

#include <QString>
#include <initializer_list>

namespace rankscope::test {

inline MatrixResult knownMatrix(qint64 step, int layer, MatrixType type, std::initializer_list<double> sigma, const QString &block = {},
                                const QString &expert = {})
{
    MatrixResult r;
    r.step = step;
    r.block = block;
    r.layer = layer;
    r.type = type;
    r.expert = expert;
    r.rows = r.cols = qint64(sigma.size());
    r.singularValues = Eigen::Map<const Eigen::VectorXd>(sigma.begin(), Eigen::Index(sigma.size()));
    r.metrics = computeSpectralMetrics(r.singularValues, r.rows, r.cols);
    return r;
}

} // namespace rankscope::test
