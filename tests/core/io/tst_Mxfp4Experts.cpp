// GPT-OSS as the Hub stores it: MXFP4 experts (transformers integrations/mxfp4.py). "gate_up_proj_blocks"
// uint8 [E, 2I, H/32, 16] with "gate_up_proj_scales" uint8 [E, 2I, H/32], down_proj likewise [E, H, I/32, 16];
// convert_moe_packed_tensors: FP4_VALUES = [+0.0, +0.5, +1.0, +1.5, +2.0, +3.0, +4.0, +6.0, -0.0, -0.5, …, -6.0],
// "out[:, 0::2] = lut[idx_lo]", "out[:, 1::2] = lut[idx_hi]", "scales = scales.to(torch.int32) - 127",
// "torch.ldexp(out, exp)", reshaped to [E, rows, G·32] and "out.transpose(1, 2)": [E, H, 2I] and [E, I, H], as
// the bf16 GptOssExperts holds them, gate and up interleaved by column ("gate_up[..., ::2]", "[..., 1::2]").
// The blocks are encoded here by hand from chosen FP4 codes and exponents (independently of the decoder), so a
// swapped nibble, a wrong exponent bias, a wrong orientation or a wrong gate/up split changes the values read.
#include "FormatWriters.h"
#include "analysis/execution/RunAnalyzer.h"
#include "io/CheckpointFormats.h"
#include "TestSuite.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <Eigen/SVD>
#include <cmath>
#include <functional>

namespace tst_mxfp4experts {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using M = Eigen::MatrixXd;

// The e2m1 value of each 4-bit code: sign bit 3, then two exponent bits and one mantissa bit.
double fp4(int code)
{
    static const double magnitude[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    return (code & 8 ? -1.0 : 1.0) * magnitude[code & 7];
}

// One expert's packed matrix: codes [rows, G·32] and one exponent per (row, block of 32).
struct Packed {
    int rows = 0, groups = 0;
    QList<int> codes;     // row-major [rows, groups·32]
    QList<int> exponents; // [rows, groups], the scale byte minus 127
    M values() const
    {
        M m(rows, groups * 32);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < groups * 32; ++c)
                m(r, c) = std::ldexp(fp4(codes[r * groups * 32 + c]), exponents[r * groups + c / 32]);
        return m;
    }
};

// Experts' packed matrices as …_blocks (two codes a byte, the even column's in the low nibble) and …_scales.
void appendPair(QList<SafeTensor> &tensors, const QString &stem, const QList<Packed> &experts)
{
    QByteArray blocks, scales;
    for (const Packed &p : experts)
        for (int r = 0; r < p.rows; ++r)
            for (int g = 0; g < p.groups; ++g) {
                scales.append(char(quint8(p.exponents[r * p.groups + g] + 127)));
                for (int i = 0; i < 16; ++i) {
                    const int at = r * p.groups * 32 + g * 32 + 2 * i;
                    blocks.append(char(quint8(p.codes[at] | (p.codes[at + 1] << 4))));
                }
            }
    const qint64 e = experts.size(), rows = experts[0].rows, groups = experts[0].groups;
    tensors.append({stem + "_blocks", "U8", {e, rows, groups, 16}, blocks});
    tensors.append({stem + "_scales", "U8", {e, rows, groups}, scales});
}

SafeTensor floats(const QString &name, const M &m)
{
    QList<float> values;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            values << float(m(r, c));
    return {name, "F32", {m.rows(), m.cols()}, rawBytes(values)};
}

// Codes and exponents drawn from a fixed sequence: every code (±0 … ±6) and exponents of both signs.
Packed arbitrary(int rows, int groups, int seed)
{
    Packed p{rows, groups, {}, {}};
    for (int i = 0; i < rows * groups * 32; ++i)
        p.codes << (i * 7 + seed * 3 + i / 5) % 16;
    for (int i = 0; i < rows * groups; ++i)
        p.exponents << (i * 5 + seed) % 9 - 4;
    return p;
}

// A matrix of one nonzero a row, on the diagonal: row j holds fp4(codes[j]) · 2^exponent in column j.
Packed diagonal(int n, const std::function<int(int)> &code, int exponent)
{
    Packed p{n, 1, QList<int>(n * 32, 0), QList<int>(n, exponent)};
    for (int j = 0; j < n; ++j)
        p.codes[j * 32 + j] = code(j);
    return p;
}

// Gate and up [I, H] stored interleaved by row in gate_up's [2I, H] (its [H, 2I] transpose interleaves columns).
Packed interleave(const Packed &gate, const Packed &up)
{
    Packed p{2 * gate.rows, gate.groups, {}, {}};
    for (int j = 0; j < gate.rows; ++j)
        for (const Packed *part : {&gate, &up}) {
            p.codes << part->codes.mid(j * gate.groups * 32, gate.groups * 32);
            p.exponents << part->exponents.mid(j * gate.groups, gate.groups);
        }
    return p;
}

Eigen::VectorXd singularValues(const M &m) { return Eigen::JacobiSVD<M>(m).singularValues(); }

} // namespace

class TestMxfp4Experts : public QObject {
    Q_OBJECT

private slots:
    // Each expert is the transpose of the stored [rows, G·32] values, exactly (every value is FP4 × 2^k).
    void decodesAsTransformers()
    {
        const int experts = 2, rows = 3, groups = 2;
        QList<Packed> packed;
        for (int e = 0; e < experts; ++e)
            packed << arbitrary(rows, groups, e + 1);
        QList<SafeTensor> tensors{floats("model.layers.0.self_attn.q_proj.weight", M::Identity(4, 4))};
        appendPair(tensors, "model.layers.0.mlp.experts.down_proj", packed);
        QTemporaryDir dir;
        saveBytes(dir.filePath("model.safetensors"), safetensorsFile(tensors));
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(dir.filePath("model.safetensors"), &error);
        QVERIFY2(reader, qPrintable(error));
        QVERIFY2(reader->formatName().contains("MXFP4"), qPrintable(reader->formatName()));
        QStringList names;
        for (const TensorInfo &t : reader->tensors()) {
            names << t.name;
            if (t.name.endsWith("down_proj"))
                QCOMPARE(t.shape, (QList<qint64>{experts, groups * 32, rows}));
        }
        names.sort();
        QCOMPARE(names, (QStringList{"model.layers.0.mlp.experts.down_proj", "model.layers.0.self_attn.q_proj.weight"}));
        for (int e = 0; e < experts; ++e) {
            const MatrixRead read = reader->readMatrix("model.layers.0.mlp.experts.down_proj", e);
            QVERIFY2(read.ok(), qPrintable(read.error));
            const M expected = packed[e].values().transpose();
            QCOMPARE(read.values.rows(), expected.rows());
            QCOMPARE(read.values.cols(), expected.cols());
            QVERIFY2(read.values == expected, qPrintable(QStringLiteral("expert %1 differs from the values encoded").arg(e)));
        }
        QVERIFY(reader->warnings().isEmpty());
    }

    // An index may put the blocks in one shard and their scales in another: the pair is read across them.
    void pairAcrossShards()
    {
        QList<SafeTensor> pair;
        appendPair(pair, "model.layers.0.mlp.experts.down_proj", {arbitrary(2, 1, 3)});
        QTemporaryDir dir;
        saveBytes(dir.filePath("model-00001-of-00002.safetensors"),
                  safetensorsFile({floats("model.layers.0.self_attn.q_proj.weight", M::Identity(4, 4)), pair[0]}));
        saveBytes(dir.filePath("model-00002-of-00002.safetensors"), safetensorsFile({pair[1]}));
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(dir.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        const MatrixRead read = reader->readMatrix("model.layers.0.mlp.experts.down_proj", 0);
        QVERIFY2(read.ok(), qPrintable(read.error));
        QVERIFY(read.values == M(arbitrary(2, 1, 3).values().transpose()));
    }

    // A pair that is not MXFP4 as transformers writes it is refused by name with the reason, never decoded
    // as something else; the rest of the checkpoint is read.
    void malformedPairsAreRefused_data()
    {
        QTest::addColumn<QString>("flaw");
        QTest::addColumn<QString>("reason");
        QTest::newRow("scales of another shape") << "scales" << "not one per block";
        QTest::newRow("a lone _blocks") << "lone" << "no …_scales";
        QTest::newRow("int8 blocks") << "int8" << "not uint8";
        QTest::newRow("8-byte blocks") << "narrow" << "[experts, rows, blocks, 16]";
    }
    void malformedPairsAreRefused()
    {
        QFETCH(QString, flaw);
        QFETCH(QString, reason);
        const QString stem = "model.layers.0.mlp.experts.gate_up_proj";
        QList<SafeTensor> tensors{floats("model.layers.0.self_attn.q_proj.weight", M::Identity(4, 4))};
        appendPair(tensors, stem, {arbitrary(4, 1, 1), arbitrary(4, 1, 2)});
        SafeTensor &blocks = tensors[1], &scales = tensors[2];
        if (flaw == "scales") {
            scales.shape = {2, 2, 2};
        } else if (flaw == "lone") {
            tensors.removeAt(2);
        } else if (flaw == "int8") {
            blocks.dtype = "I8";
        } else {
            blocks.shape = {2, 4, 2, 8};
        }
        QTemporaryDir dir;
        saveBytes(dir.filePath("model.safetensors"), safetensorsFile(tensors));
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(dir.filePath("model.safetensors"), &error);
        QVERIFY2(reader, qPrintable(error));
        QStringList names;
        for (const TensorInfo &t : reader->tensors())
            names << t.name;
        QVERIFY2(names.contains("model.layers.0.self_attn.q_proj.weight"), qPrintable(names.join(", ")));
        QVERIFY2(!names.contains(stem) && !names.contains(stem + "_blocks"), qPrintable(names.join(", ")));
        const QStringList warnings = reader->warnings();
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings[0].contains(stem + "_blocks") && warnings[0].contains("MXFP4") && warnings[0].contains(reason), qPrintable(warnings[0]));
    }

    // End to end: gate (even rows of the stored [2I, H]), up (odd rows) and down of each expert come out with the
    // singular values encoded (diagonal matrices: |FP4 code| × 2^k, a different k for each), typed and numbered
    // as the bf16 checkpoint's; experts that disagree with num_local_experts are reported.
    void gptOssSpectra_data()
    {
        QTest::addColumn<int>("configuredExperts");
        QTest::newRow("config.json agrees") << 2;
        QTest::newRow("num_local_experts disagrees") << 3;
    }
    void gptOssSpectra()
    {
        QFETCH(int, configuredExperts);
        const int experts = 2, inner = 32, hidden = 32;
        QList<Packed> gateUp, down;
        QHash<QString, M> expected; // "<type> <expert>" → matrix
        for (int e = 0; e < experts; ++e) {
            const Packed gate = diagonal(inner, [](int j) { return 1 + j % 7; }, e + 1);
            const Packed up = diagonal(inner, [](int j) { return 9 + (j + 3) % 7; }, -(e + 1)); // negative values
            const Packed d = diagonal(hidden, [](int j) { return 1 + (j * 3) % 7; }, e + 4);
            gateUp << interleave(gate, up);
            down << d;
            expected.insert(QStringLiteral("MLP_GATE %1").arg(e), gate.values());
            expected.insert(QStringLiteral("MLP_UP %1").arg(e), up.values());
            expected.insert(QStringLiteral("MLP_DOWN %1").arg(e), d.values());
        }
        const QString p = "model.layers.0.";
        QList<SafeTensor> tensors{floats(p + "self_attn.q_proj.weight", M::Identity(hidden, hidden) * 0.5),
                                  floats(p + "mlp.router.weight", M::Ones(experts, hidden))};
        appendPair(tensors, p + "mlp.experts.gate_up_proj", gateUp);
        tensors << floats(p + "mlp.experts.gate_up_proj_bias", M::Zero(experts, 2 * inner));
        appendPair(tensors, p + "mlp.experts.down_proj", down);
        tensors << floats(p + "mlp.experts.down_proj_bias", M::Zero(experts, hidden));
        QTemporaryDir dir;
        saveBytes(dir.filePath("model.safetensors"), safetensorsFile(tensors));
        const QJsonObject config{{"model_type", "gpt_oss"}, {"num_attention_heads", 4}, {"hidden_size", hidden},
                                 {"intermediate_size", inner}, {"num_local_experts", configuredExperts},
                                 {"quantization_config", QJsonObject{{"quant_method", "mxfp4"}}}};
        saveBytes(dir.filePath("config.json"), QJsonDocument(config).toJson());
        RunAnalyzer analyzer;
        analyzer.setNameRules(TensorNameRules::builtIn());
        const RunAnalysis run = analyzer.analyzeFolder(dir.path());
        QStringList issues;
        for (const AnalysisIssue &issue : run.issues)
            issues << issue.tensor + ": " + issue.message;
        QSet<QString> seen;
        for (const MatrixResult &r : run.results) {
            const MatrixIdentity id = r.identity();
            if (id.type == MatrixType::Q)
                continue;
            const QString key = QStringLiteral("%1 %2").arg(csvName(id.type), id.expert);
            QVERIFY2(expected.contains(key) && !seen.contains(key), qPrintable(key));
            seen.insert(key);
            const Eigen::VectorXd want = singularValues(expected[key]);
            QCOMPARE(r.singularValues.size(), want.size());
            QVERIFY2((r.singularValues - want).cwiseAbs().maxCoeff() <= 1e-9 * want[0],
                     qPrintable(QStringLiteral("%1: σ₁ %2, expected %3").arg(key).arg(r.singularValues[0]).arg(want[0])));
        }
        if (configuredExperts == experts) {
            QCOMPARE(seen.size(), expected.size());
            QVERIFY2(issues.isEmpty(), qPrintable(issues.join("\n")));
            return;
        }
        // gate_up_proj is refused by name (down_proj, checked by nothing that disagrees, is analysed).
        QCOMPARE(seen.size(), experts);
        QCOMPARE(issues.size(), 1);
        QVERIFY2(issues[0].startsWith(p + "mlp.experts.gate_up_proj: ") && issues[0].contains("num_local_experts is 3"), qPrintable(issues[0]));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMxfp4Experts)
} // namespace tst_mxfp4experts

#include "tst_Mxfp4Experts.moc"
