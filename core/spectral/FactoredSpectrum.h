// Singular values of a low-rank product A·Bᵀ (A, B: d × k, k ≪ d) without forming the d × d
// product, as TransformerLens' FactoredMatrix.svd reduces A·B to a small core between orthonormal
// factors: here A = Q_A·R_A and B = Q_B·R_B by Householder QR (FactoredMatrix takes thin SVDs of
// both; the core's singular values are the same), so σ(A·Bᵀ) = σ(R_A·R_Bᵀ), a k × k SVD. R of one
// factor serves every product it enters (a key/value head serves its whole group of query heads),
// and its own singular values are the factor's.
#pragma once

#include <Eigen/Core>

namespace rankscope {

// R of the thin QR of a factor (d × k): min(d, k) × k, upper triangular; σ(R) = σ(factor).
Eigen::MatrixXd triangularFactor(const Eigen::Ref<const Eigen::MatrixXd> &factor);
// σ(A·Bᵀ) from the R of A and the R of B (both with k columns), descending: min(rows) values.
Eigen::VectorXd productSingularValues(const Eigen::Ref<const Eigen::MatrixXd> &rA, const Eigen::Ref<const Eigen::MatrixXd> &rB);
// σ of scale·L·Rᵀ (L: m × r, R: n × r) from the r × r core between the factors' orthonormal bases,
// descending, with min(m, n) − rank zeros after the nonzero values: the whole spectrum of the m × n
// product at the cost of two thin QRs.
Eigen::VectorXd lowRankProductSingularValues(const Eigen::Ref<const Eigen::MatrixXd> &left, const Eigen::Ref<const Eigen::MatrixXd> &right,
                                             double scale);
// The top right singular vectors of L·Rᵀ (n × k', unit columns, largest σ first): R's thin
// orthonormal basis times the core's right vectors, k' = min(k, the product's nonzero rank), since
// past its rank a product has no direction of its own (--subspace of a LoRA update).
Eigen::MatrixXf lowRankProductTopRightVectors(const Eigen::Ref<const Eigen::MatrixXd> &left, const Eigen::Ref<const Eigen::MatrixXd> &right, int k);
// σ of a small dense matrix, descending (an R, or a core).
Eigen::VectorXd smallSingularValues(const Eigen::Ref<const Eigen::MatrixXd> &matrix);

} // namespace rankscope
