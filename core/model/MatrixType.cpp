#include "model/MatrixType.h"

namespace rankscope {

namespace {
struct TypeInfo {
    const char *csv;
    const char *label;
    const char *colour;
};

TypeInfo info(MatrixType type)
{
    switch (type) {
    case MatrixType::Q: return {"Q", "Q", "#0072B2"};
    case MatrixType::K: return {"K", "K", "#E69F00"};
    case MatrixType::V: return {"V", "V", "#009E73"};
    case MatrixType::O: return {"O", "O", "#CC79A7"};
    case MatrixType::MlpGate: return {"MLP_GATE", "MLP gate", "#D55E00"};
    case MatrixType::MlpUp: return {"MLP_UP", "MLP\u2191", "#56B4E9"};
    case MatrixType::MlpDown: return {"MLP_DOWN", "MLP\u2193", "#F0E442"};
    // The palette's eighth, black, and a neutral grey beside it: no circuit shares a matrix's colour.
    case MatrixType::QK: return {"QK", "QK", "#000000"};
    case MatrixType::OV: return {"OV", "OV", "#999999"};
    }
    return {"?", "?", "#000000"};
}
} // namespace

QString csvName(MatrixType type) { return QString::fromLatin1(info(type).csv); }
QString displayLabel(MatrixType type) { return QString::fromUtf8(info(type).label); }
QString colourHex(MatrixType type) { return QString::fromLatin1(info(type).colour); }

std::optional<MatrixType> matrixTypeFromCsvName(const QString &name)
{
    for (MatrixType type : kAllMatrixTypes)
        if (name.compare(csvName(type), Qt::CaseInsensitive) == 0)
            return type;
    return std::nullopt;
}

std::optional<MatrixType> anyTypeFromCsvName(const QString &name)
{
    for (MatrixType type : kCircuitTypes)
        if (name.compare(csvName(type), Qt::CaseInsensitive) == 0)
            return type;
    return matrixTypeFromCsvName(name);
}

bool isCircuit(MatrixType type) { return type == MatrixType::QK || type == MatrixType::OV; }

} // namespace rankscope
