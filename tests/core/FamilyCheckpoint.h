// Tiny checkpoints of real architectures for the family tests: every matrix a model's forward() uses
// gets a spectrum of its own (σ = c, 1, 1, …, with c unique to the matrix), so its stable rank
// names it. Fused tensors are assembled from those parts exactly as the family's forward() splits
// them (written out here independently of the code under test), so a wrong split, a wrong type or a
// wrong identity shows as a wrong or missing stable rank.
#pragma once

#include "FormatWriters.h"
#include "TestMatrices.h"
#include "analysis/execution/RunAnalyzer.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace rankscope::test {

struct ExpectedMatrix {
    qint64 rows = 0, cols = 0;
    double stableRank = 0;
};

// The identity the analysis gives layer `layer`'s matrix of `type` (in `block`, of `expert`, if any).
inline MatrixIdentity id(int layer, MatrixType type, const QString &block = {}, const QString &expert = {})
{
    return {block, layer, type, expert};
}

// The values as an F32 tensor stores them and a reader gives them back: each rounded to float.
inline Eigen::MatrixXd asFloat(const Eigen::MatrixXd &m)
{
    return m.cast<float>().cast<double>();
}

class FamilyCheckpoint {
public:
    using Matrix = Eigen::MatrixXd;

    // A new matrix, rows × cols, for the given identity.
    Matrix matrix(const MatrixIdentity &id, int rows, int cols)
    {
        const int r = std::min(rows, cols);
        const double c = 1.5 + 0.173 * double(m_expected.size());
        Eigen::VectorXd s = Eigen::VectorXd::Ones(r);
        s[0] = c;
        if (m_expected.contains(id))
            QTest::qFail(qPrintable(QStringLiteral("the test builds %1 twice").arg(id.text())), __FILE__, __LINE__);
        m_expected.insert(id, {rows, cols, (c * c + (r - 1)) / (c * c)});
        return withSingularValues(rows, cols, s, m_rng);
    }
    // A matrix that is stored but is not one of the types (a router, an embedding).
    Matrix other(int rows, int cols) { return gaussianMatrix(rows, cols, m_rng, 0.1); }

    void add(const QString &name, const Matrix &m) { add(name, {m.rows(), m.cols()}, m); }
    // A 3-D tensor: the slices stacked along a first dimension.
    void add3d(const QString &name, const QList<Matrix> &slices)
    {
        Matrix stacked(slices.size() * slices[0].rows(), slices[0].cols());
        for (qsizetype i = 0; i < slices.size(); ++i)
            stacked.middleRows(i * slices[0].rows(), slices[0].rows()) = slices[i];
        add(name, {slices.size(), slices[0].rows(), slices[0].cols()}, stacked);
    }
    void addVector(const QString &name, int n) { add(name, {n}, Matrix::Ones(1, n)); }
    void setConfig(const QJsonObject &config) { m_config = config; }
    const QHash<MatrixIdentity, ExpectedMatrix> &expected() const { return m_expected; }

    // Writes model.safetensors (and config.json) into a folder of its own and analyses it.
    RunAnalysis analyse(const TensorNameRules &rules = TensorNameRules::builtIn(), const AnalysisSettings &settings = {},
                        const RunAnalysis *previous = nullptr)
    {
        write(m_dir.filePath("model.safetensors"));
        RunAnalyzer analyzer(settings);
        analyzer.setNameRules(rules);
        return analyzer.analyzeFolder(m_dir.path(), {}, previous);
    }
    // Writes the tensors as the safetensors file `path` (and config.json beside it), without
    // analysing: a checkpoint of a run that the command line is given.
    void write(const QString &path) const
    {
        QList<SafeTensor> tensors;
        for (const auto &[name, shape, data] : m_tensors) {
            QList<float> values;
            for (Eigen::Index r = 0; r < data.rows(); ++r)
                for (Eigen::Index c = 0; c < data.cols(); ++c)
                    values << float(data(r, c));
            tensors.append({name, "F32", shape, rawBytes(values)});
        }
        saveBytes(path, safetensorsFile(tensors));
        if (!m_config.isEmpty())
            saveBytes(QFileInfo(path).dir().filePath("config.json"), QJsonDocument(m_config).toJson());
    }
    QString folder() const { return m_dir.path(); }

private:
    void add(const QString &name, const QList<qint64> &shape, const Matrix &data) { m_tensors.append({name, shape, data}); }

    std::mt19937_64 m_rng{20261130};
    QTemporaryDir m_dir;
    QJsonObject m_config;
    QHash<MatrixIdentity, ExpectedMatrix> m_expected;
    struct Stored {
        QString name;
        QList<qint64> shape;
        Matrix data;
    };
    QList<Stored> m_tensors;
};

// Row blocks one after another.
inline Eigen::MatrixXd stackRows(const QList<Eigen::MatrixXd> &blocks)
{
    Eigen::Index rows = 0;
    for (const auto &b : blocks)
        rows += b.rows();
    Eigen::MatrixXd out(rows, blocks[0].cols());
    Eigen::Index at = 0;
    for (const auto &b : blocks) {
        out.middleRows(at, b.rows()) = b;
        at += b.rows();
    }
    return out;
}

// For each group g, `take[i]` rows of part i starting at g·take[i]: how per-head layouts interleave.
inline Eigen::MatrixXd interleaveRows(const QList<Eigen::MatrixXd> &parts, const QList<int> &take, int groups)
{
    QList<Eigen::MatrixXd> blocks;
    for (int g = 0; g < groups; ++g)
        for (qsizetype i = 0; i < parts.size(); ++i)
            blocks << parts[i].middleRows(g * take[i], take[i]);
    return stackRows(blocks);
}

} // namespace rankscope::test
