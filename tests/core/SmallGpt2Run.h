// A one-layer HF GPT-2 run written as safetensors checkpoints (step_NNNNNN.safetensors and its
// config.json), for the tests of metrics that compare checkpoints (--delta, --subspace).
#pragma once

#include "FormatWriters.h"
#include "TestMatrices.h"
#include "analysis/results/RunAnalysis.h"

#include <Eigen/Dense>
#include <QDir>
#include <random>

namespace rankscope::test::gpt2 {

constexpr int H = 16; // hidden size of the small GPT-2

// One HF GPT-2 layer (Conv1D: c_attn [C, 3C] holds Q | K | V as columns, c_fc [C, 4C]).
struct Gpt2Layer {
    Eigen::MatrixXd q, k, v, o, up, down;
};

inline Gpt2Layer randomLayer(std::mt19937_64 &rng)
{
    return {test::gaussianMatrix(H, H, rng, 0.2), test::gaussianMatrix(H, H, rng, 0.2), test::gaussianMatrix(H, H, rng, 0.2),
            test::gaussianMatrix(H, H, rng, 0.2), test::gaussianMatrix(H, 4 * H, rng, 0.2), test::gaussianMatrix(4 * H, H, rng, 0.2)};
}

// What a float32 checkpoint holds of a matrix, back in float64.
inline Eigen::MatrixXd asStored(const Eigen::MatrixXd &m) { return m.cast<float>().cast<double>(); }

inline QByteArray f32(const Eigen::MatrixXd &m)
{
    QList<float> values;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            values << float(m(r, c));
    return rawBytes(values);
}

inline void writeCheckpoint(const QString &path, const Gpt2Layer &l)
{
    Eigen::MatrixXd qkv(H, 3 * H);
    qkv << l.q, l.k, l.v;
    saveBytes(path, safetensorsFile({{"h.0.attn.c_attn.weight", "F32", {H, 3 * H}, f32(qkv)},
                                     {"h.0.attn.c_proj.weight", "F32", {H, H}, f32(l.o)},
                                     {"h.0.mlp.c_fc.weight", "F32", {l.up.rows(), l.up.cols()}, f32(l.up)},
                                     {"h.0.mlp.c_proj.weight", "F32", {l.down.rows(), l.down.cols()}, f32(l.down)}}));
}

// A run of GPT-2 checkpoints, step_NNNNNN.safetensors, with its config.json.
inline void writeRun(const QString &folder, const QList<std::pair<int, Gpt2Layer>> &steps)
{
    for (const auto &[step, layer] : steps)
        writeCheckpoint(QDir(folder).filePath(QStringLiteral("step_%1.safetensors").arg(step, 6, 10, QLatin1Char('0'))), layer);
    saveBytes(QDir(folder).filePath("config.json"), R"({"model_type": "gpt2", "n_head": 4})");
}

inline const MatrixResult *find(const RunAnalysis &run, qint64 step, MatrixType type)
{
    for (const MatrixResult &r : run.results)
        if (r.step == step && r.type == type)
            return &r;
    return nullptr;
}

// The layer's matrix of a type, as the checkpoint stores it.
inline Eigen::MatrixXd &matrixOf(Gpt2Layer &l, MatrixType type)
{
    return type == MatrixType::Q ? l.q : type == MatrixType::K ? l.k : type == MatrixType::V ? l.v : type == MatrixType::O ? l.o
         : type == MatrixType::MlpUp ? l.up : l.down;
}

inline constexpr MatrixType kGpt2Types[] = {MatrixType::Q, MatrixType::K, MatrixType::V, MatrixType::O, MatrixType::MlpUp, MatrixType::MlpDown};

} // namespace rankscope::test::gpt2
