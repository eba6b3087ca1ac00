// --heads: the spectra of each head of an attention matrix and of each head's QK and OV circuit.
// A head's factor is its slice laid d × head_dim (Q, K, V: its output features; O: its input
// features, as z_h·W_O^h reads them); its R (FactoredSpectrum) gives its own singular values and
// enters the circuits: QK^h = W_Q^h·W_K^gᵀ and OV^h = W_V^g·W_O^h, g the key/value head serving
// query head h, d × d of rank ≤ head_dim, never formed.
#pragma once

#include "analysis/planning/HeadPlan.h"
#include "analysis/results/MatrixResult.h"
#include "spectral/MatrixBlockSource.h"

namespace rankscope {

class HeadSpectra {
public:
    // One row per head of the matrix (its type, head and kvHead set, its R kept in headFactor),
    // with every metric from its spectrum at τ = energy; none when the matrix holds a non-finite
    // value (its own solve says so).
    static QList<MatrixResult> ofMatrix(const MatrixBlockSource &source, const HeadCut &cut, const MatrixResult &base, double energy);
    // Adds the QK and OV circuits of every query head whose four factors the rows hold, and lets go
    // of every R (their only use).
    static void addCircuits(QList<MatrixResult> &rows, double energy);
};

} // namespace rankscope
