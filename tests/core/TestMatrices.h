// Matrices with a spectrum known in advance, and the exact decompositions the tests check spectra
// against. Compiled once (TestMatrices.cpp): Eigen's QR, products and BDCSVD instantiated in every
// test file that used them were a third of the tests' compile time.
#pragma once

#include <Eigen/Core>
#include <random>

namespace rankscope::test {

// A random orthogonal n×n matrix: the Q factor of a Gaussian matrix.
Eigen::MatrixXd randomOrthogonal(int n, std::mt19937_64 &rng);

// U·diag(s)·Vᵀ, rows×cols, with s (length ≤ min(rows, cols)) on the diagonal.
Eigen::MatrixXd withSingularValues(int rows, int cols, const Eigen::VectorXd &s, std::mt19937_64 &rng);

Eigen::MatrixXd gaussianMatrix(int rows, int cols, std::mt19937_64 &rng, double scale = 1.0);

// The reference: Eigen's BDCSVD in double, independent of the Gram and LAPACK paths under test.
Eigen::VectorXd exactSingularValues(const Eigen::MatrixXd &m);
// The first k right singular vectors, as columns.
Eigen::MatrixXd exactRightSingularVectors(const Eigen::MatrixXd &m, int k);

} // namespace rankscope::test
