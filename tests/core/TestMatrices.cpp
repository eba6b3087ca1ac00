#include "TestMatrices.h"

#include <Eigen/Dense>

namespace rankscope::test {

Eigen::MatrixXd randomOrthogonal(int n, std::mt19937_64 &rng)
{
    std::normal_distribution<double> gauss;
    Eigen::MatrixXd a(n, n);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        a.data()[i] = gauss(rng);
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
    return qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
}

Eigen::MatrixXd withSingularValues(int rows, int cols, const Eigen::VectorXd &s, std::mt19937_64 &rng)
{
    Eigen::MatrixXd sigma = Eigen::MatrixXd::Zero(rows, cols);
    for (Eigen::Index i = 0; i < s.size(); ++i)
        sigma(i, i) = s[i];
    return randomOrthogonal(rows, rng) * sigma * randomOrthogonal(cols, rng).transpose();
}

Eigen::MatrixXd gaussianMatrix(int rows, int cols, std::mt19937_64 &rng, double scale)
{
    std::normal_distribution<double> gauss(0.0, scale);
    Eigen::MatrixXd a(rows, cols);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        a.data()[i] = gauss(rng);
    return a;
}

Eigen::VectorXd exactSingularValues(const Eigen::MatrixXd &m)
{
    return Eigen::BDCSVD<Eigen::MatrixXd>(m).singularValues();
}

Eigen::MatrixXd exactRightSingularVectors(const Eigen::MatrixXd &m, int k)
{
    return Eigen::BDCSVD<Eigen::MatrixXd>(m, Eigen::ComputeThinV).matrixV().leftCols(k);
}

} // namespace rankscope::test
