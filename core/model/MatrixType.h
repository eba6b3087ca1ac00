// The seven matrix types of the metric contract, with their CSV names, display labels and
// Okabe–Ito colours. The enum order is the contract's sort order for tables and exports.
#pragma once

#include <QString>
#include <array>
#include <optional>

namespace rankscope {

enum class MatrixType { Q, K, V, O, MlpUp, MlpDown, MlpGate };

inline constexpr std::array<MatrixType, 7> kAllMatrixTypes = {
    MatrixType::Q,     MatrixType::K,       MatrixType::V,      MatrixType::O,
    MatrixType::MlpUp, MatrixType::MlpDown, MatrixType::MlpGate};

// "Q", "K", …, "MLP_GATE", "MLP_UP", "MLP_DOWN": the names used in CSV, JSON and the CLI.
QString csvName(MatrixType type);
// "Q", …, "MLP↑", "MLP↓", "MLP gate": the names shown in legends and axes.
QString displayLabel(MatrixType type);
// The type's colour as "#RRGGBB".
QString colourHex(MatrixType type);
std::optional<MatrixType> matrixTypeFromCsvName(const QString &name);

} // namespace rankscope
