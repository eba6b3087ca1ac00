// Matrices with a spectrum known in advance, for the spectral tests.
#pragma once

#include <Eigen/Dense>
#include <random>

namespace rankscope::test {

// A random orthogonal n×n matrix: the Q factor of a Gaussian matrix.
inline Eigen::MatrixXd randomOrthogonal(int n, std::mt19937_64 &rng)
{
    std::normal_distribution<double> gauss;
    Eigen::MatrixXd a(n, n);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        a.data()[i] = gauss(rng);
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
    return qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
}

// U·diag(s)·Vᵀ, rows×cols, with s (length ≤ min(rows, cols)) on the diagonal.
inline Eigen::MatrixXd withSingularValues(int rows, int cols, const Eigen::VectorXd &s, std::mt19937_64 &rng)
{
    Eigen::MatrixXd sigma = Eigen::MatrixXd::Zero(rows, cols);
    for (Eigen::Index i = 0; i < s.size(); ++i)
        sigma(i, i) = s[i];
    return randomOrthogonal(rows, rng) * sigma * randomOrthogonal(cols, rng).transpose();
}

inline Eigen::MatrixXd gaussianMatrix(int rows, int cols, std::mt19937_64 &rng, double scale = 1.0)
{
    std::normal_distribution<double> gauss(0.0, scale);
    Eigen::MatrixXd a(rows, cols);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        a.data()[i] = gauss(rng);
    return a;
}

} // namespace rankscope::test
