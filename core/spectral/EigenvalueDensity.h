// The empirical spectral density (ESD) as the spectrum view draws it and a figure's data export
// would give it: eigenvalues binned on a logarithmic axis.
#pragma once

#include <Eigen/Core>
#include <QList>
#include <QPair>

namespace rankscope {

// (bin centre, density) for each non-empty bin of `bins` equal steps of log10(λ) between the
// smallest and largest eigenvalue above kPowerLawThreshold; density = count / (N · bin width),
// N counting every eigenvalue, so the curve is on the power-law fit's scale. Empty for fewer than
// 2 such eigenvalues; equal ones share one narrow bin. NaN and Inf are never binned, and every
// point returned is finite and positive, whatever `lambda` holds.
QList<QPair<double, double>> logBinnedDensity(const Eigen::Ref<const Eigen::VectorXd> &lambda, int bins);

// The bin count the spectrum view uses for N eigenvalues: 1.5·√N, from 8 to 60.
int densityBinsFor(Eigen::Index eigenvalues);

} // namespace rankscope
