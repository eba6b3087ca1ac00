// The seven matrix types of the metric contract, with their CSV names, display labels and
// Okabe–Ito colours. The enum order is the contract's sort order for tables and exports. After
// them, the two per-head circuits of --heads (QK = W_Q^h W_K^hᵀ, OV = W_V^h W_O^h): never a stored
// matrix, never in kAllMatrixTypes, so that no whole-matrix list, chip or figure holds them.
#pragma once

#include <QString>
#include <array>
#include <optional>

namespace rankscope {

enum class MatrixType { Q, K, V, O, MlpUp, MlpDown, MlpGate, QK, OV };

inline constexpr std::array<MatrixType, 7> kAllMatrixTypes = {
    MatrixType::Q,     MatrixType::K,       MatrixType::V,      MatrixType::O,
    MatrixType::MlpUp, MatrixType::MlpDown, MatrixType::MlpGate};

inline constexpr std::array<MatrixType, 2> kCircuitTypes = {MatrixType::QK, MatrixType::OV};
// What a per-head row may be: a head of an attention matrix, or a circuit.
inline constexpr std::array<MatrixType, 6> kHeadTypes = {MatrixType::Q, MatrixType::K, MatrixType::V,
                                                         MatrixType::O, MatrixType::QK, MatrixType::OV};
inline constexpr int kMatrixTypeCount = 9; // kAllMatrixTypes and kCircuitTypes

// "Q", "K", …, "MLP_GATE", "MLP_UP", "MLP_DOWN": the names used in CSV, JSON and the CLI.
QString csvName(MatrixType type);
// "Q", …, "MLP↑", "MLP↓", "MLP gate": the names shown in legends and axes.
QString displayLabel(MatrixType type);
// The type's colour as "#RRGGBB".
QString colourHex(MatrixType type);
std::optional<MatrixType> matrixTypeFromCsvName(const QString &name);
// Also "QK" and "OV": what a results file's or a table's per-head row may be.
std::optional<MatrixType> anyTypeFromCsvName(const QString &name);
bool isCircuit(MatrixType type);

} // namespace rankscope
