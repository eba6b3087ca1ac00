// LoRA fine-tuning runs as PEFT writes them (checkpoint-N/adapter_model.safetensors beside
// adapter_config.json and trainer_state.json; names base_model.model.<module>.lora_A.weight [r, in]
// and .lora_B.weight [out, r], peft tuners/lora/layer.py): every adapted module's update
// ΔW = s·B·A is analysed as the module's own matrix, from its factors. Each update is built from
// orthonormal factors with its own singular values, different for every module and for Q, K and V
// of GPT-2's fused c_attn, so a wrong pairing, orientation, split or scale fails; its norms are
// checked against s·σ (stable rank cannot see a wrong scale).
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/execution/BaseModelRuns.h"
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/MetricsTable.h"
#include "analysis/results/ResultsCacheLocation.h"
#include "analysis/results/ResultsFile.h"
#include "FormatWriters.h"
#include "spectral/FactoredSpectrum.h"
#include "TestMatrices.h"
#include "TestSuite.h"
#include "TorchCheckpointWriter.h"

#include <QBuffer>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

namespace tst_loraadapters {

using namespace rankscope;
using namespace rankscope::test;

namespace {

QByteArray floats(const Eigen::MatrixXd &m)
{
    QByteArray out;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            const float v = float(m(r, c));
            out.append(reinterpret_cast<const char *>(&v), sizeof v);
        }
    return out;
}

SafeTensor tensor(const QString &name, const Eigen::MatrixXd &m) { return {name, "F32", {m.rows(), m.cols()}, floats(m)}; }

// Orthonormal columns (n × k).
Eigen::MatrixXd orthonormal(int n, int k, std::mt19937_64 &rng) { return randomOrthogonal(n, rng).leftCols(k); }

// B·A = U·diag(s)·Vᵀ: B = U·diag(s) (out × r), A = Vᵀ (r × in).
struct Factors {
    Eigen::MatrixXd a, b;
};
Factors factorsWith(int out, int in, const Eigen::VectorXd &s, std::mt19937_64 &rng)
{
    return {orthonormal(in, int(s.size()), rng).transpose(), orthonormal(out, int(s.size()), rng) * s.asDiagonal()};
}

void writeJson(const QString &path, const QJsonObject &o) { saveBytes(path, QJsonDocument(o).toJson()); }

QJsonObject loraConfig(int r, double alpha, const QJsonArray &targets)
{
    return {{"peft_type", "LORA"}, {"task_type", "CAUSAL_LM"}, {"r", r}, {"lora_alpha", alpha}, {"use_rslora", false},
            {"fan_in_fan_out", false}, {"target_modules", targets}, {"base_model_name_or_path", "meta-llama/Llama-3.2-1B"}};
}

const MatrixResult *find(const RunAnalysis &run, qint64 step, int layer, MatrixType type)
{
    for (const MatrixResult &r : run.results)
        if (r.step == step && r.layer == layer && r.type == type && !r.isHead())
            return &r;
    return nullptr;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(b)); }

// The first values of a result's spectrum are s, the rest zeros.
bool spectrumIs(const MatrixResult &r, const Eigen::VectorXd &s)
{
    if (r.singularValues.size() != std::min(r.rows, r.cols))
        return false;
    for (Eigen::Index i = 0; i < r.singularValues.size(); ++i)
        if (!close(r.singularValues[i], i < s.size() ? s[i] : 0.0))
            return false;
    return true;
}

// Llama's seven targets, as PEFT names them: module → (type, out, in).
struct Target {
    const char *module;
    MatrixType type;
    int out, in;
};
constexpr int kHidden = 16, kKv = 8, kMlp = 24;
const Target kLlamaTargets[] = {
    {"self_attn.q_proj", MatrixType::Q, kHidden, kHidden},  {"self_attn.k_proj", MatrixType::K, kKv, kHidden},
    {"self_attn.v_proj", MatrixType::V, kKv, kHidden},      {"self_attn.o_proj", MatrixType::O, kHidden, kHidden},
    {"mlp.gate_proj", MatrixType::MlpGate, kMlp, kHidden},     {"mlp.up_proj", MatrixType::MlpUp, kMlp, kHidden},
    {"mlp.down_proj", MatrixType::MlpDown, kHidden, kMlp},
};

// The singular values of target t's B·A at a step: distinct for every module, layer and step.
Eigen::VectorXd valuesOf(int t, int layer, qint64 step, int r)
{
    Eigen::VectorXd s(r);
    for (int i = 0; i < r; ++i)
        s[i] = (1.0 + t + 0.5 * layer + step / 100.0) / (1 + i);
    return s;
}

// checkpoint-<step>/ of a Trainer + PEFT run on a two-layer Llama.
void writeLlamaCheckpoint(const QString &root, qint64 step, int r, const QJsonObject &config, std::mt19937_64 &rng,
                          const QList<SafeTensor> &extra = {})
{
    const QString dir = QDir(root).filePath(QStringLiteral("checkpoint-%1").arg(step));
    QDir().mkpath(dir);
    QList<SafeTensor> tensors = extra;
    for (int layer = 0; layer < 2; ++layer)
        for (int t = 0; t < 7; ++t) {
            const Target &target = kLlamaTargets[t];
            const Factors f = factorsWith(target.out, target.in, valuesOf(t, layer, step, r), rng);
            const QString module = QStringLiteral("base_model.model.model.layers.%1.%2").arg(layer).arg(target.module);
            tensors << tensor(module + ".lora_A.weight", f.a) << tensor(module + ".lora_B.weight", f.b);
        }
    saveBytes(QDir(dir).filePath("adapter_model.safetensors"), safetensorsFile(tensors));
    if (!config.isEmpty())
        writeJson(QDir(dir).filePath("adapter_config.json"), config);
    writeJson(QDir(dir).filePath("trainer_state.json"), {{"global_step", step}});
}

const QJsonArray kSevenTargets{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};

} // namespace

class TestLoraAdapters : public QObject {
    Q_OBJECT

private slots:
    // The factored spectrum against a dense SVD of s·L·Rᵀ, for factors that are not orthonormal.
    void factoredSpectrumIsTheProductSpectrum()
    {
        std::mt19937_64 rng(7);
        const Eigen::MatrixXd left = gaussianMatrix(40, 6, rng), right = gaussianMatrix(25, 6, rng);
        const Eigen::VectorXd sigma = lowRankProductSingularValues(left, right, -0.75);
        const Eigen::VectorXd dense = exactSingularValues(-0.75 * left * right.transpose());
        QCOMPARE(sigma.size(), 25);
        for (Eigen::Index i = 0; i < sigma.size(); ++i)
            QVERIFY2(std::abs(sigma[i] - dense[i]) <= 1e-10 * dense[0], qPrintable(QString::number(i)));
        QCOMPARE(sigma[6], 0.0);
    }

    // Seven targets in two layers over two steps: each update typed as its module, with s·σ(B·A).
    void llamaRunShowsEveryUpdate()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(1);
        const int r = 4;
        const double alpha = 8, s = alpha / r;
        for (qint64 step : {10, 20})
            writeLlamaCheckpoint(dir.path(), step, r, loraConfig(r, alpha, kSevenTargets), rng);
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QVERIFY2(listing.takenFor.join('\n').contains("PEFT LORA adapter run: r = 4, 7 target modules, 2 checkpoints"),
                 qPrintable(listing.takenFor.join('\n')));

        const RunAnalysis run = RunAnalyzer(AnalysisSettings()).analyzeFolder(dir.path());
        for (const AnalysisIssue &issue : run.issues)
            QFAIL(qPrintable(issue.text()));
        QCOMPARE(run.results.size(), 2 * 2 * 7);
        for (qint64 step : {10, 20})
            for (int layer = 0; layer < 2; ++layer)
                for (int t = 0; t < 7; ++t) {
                    const Target &target = kLlamaTargets[t];
                    const MatrixResult *m = find(run, step, layer, target.type);
                    QVERIFY2(m, target.module);
                    QCOMPARE(m->rows, target.out);
                    QCOMPARE(m->cols, target.in);
                    QCOMPARE(m->weights, QStringLiteral("update"));
                    QCOMPARE(m->updateRank, r);
                    QVERIFY2(m->tensor.endsWith(QStringLiteral("%1.lora_B@lora_A").arg(target.module)), qPrintable(m->tensor));
                    const Eigen::VectorXd expected = s * valuesOf(t, layer, step, r);
                    QVERIFY2(spectrumIs(*m, expected), qPrintable(m->tensor));
                    QVERIFY(close(m->metrics.spectralNorm, expected[0]));
                    QVERIFY(close(m->metrics.frobeniusNorm, expected.norm()));
                    QVERIFY(close(m->metrics.stableRank, expected.squaredNorm() / (expected[0] * expected[0])));
                    // Four eigenvalues: no power law, no Marchenko–Pastur bulk.
                    QVERIFY(std::isnan(m->metrics.alpha));
                    QVERIFY(std::isnan(m->metrics.numSpikes));
                }

        // The CSV says which rows are updates, their r and how much of it the energy uses.
        QBuffer csv;
        csv.open(QIODevice::WriteOnly);
        QVERIFY(MetricsTable::writeCsv(run.results, csv));
        const QStringList lines = QString::fromUtf8(csv.data()).split('\n');
        QVERIFY(lines[0].endsWith(",weights,update_rank,update_rank_used_pct"));
        const MatrixResult &first = run.results.first();
        QVERIFY2(lines[1].endsWith(QStringLiteral(",update,4,%1").arg(MetricsTable::formatNumber(100.0 * first.metrics.energyRank / 4))),
                 qPrintable(lines[1]));

        // The results file keeps them.
        const QString path = QDir(dir.path()).filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(run, path, &error), qPrintable(error));
        const std::optional<RunAnalysis> loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->results.first().weights, QStringLiteral("update"));
        QCOMPARE(loaded->results.first().updateRank, r);
    }

    // GPT-2's c_attn is a Conv1D stored in × out; PEFT trains it under fan_in_fan_out, and the
    // update (s·B·A)ᵀ splits into Q, K and V by columns as the base tensor does.
    void gpt2FusedUpdateSplitsIntoQkv()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(2);
        const int d = 12, r = 3;
        const Eigen::VectorXd sq = Eigen::Vector3d(3, 2, 1), sk = Eigen::Vector3d(0.9, 0.5, 0.25), sv = Eigen::Vector3d(7, 0.1, 0.01);
        const Eigen::MatrixXd a = orthonormal(d, r, rng).transpose();
        Eigen::MatrixXd b(3 * d, r);
        b << orthonormal(d, r, rng) * sq.asDiagonal(), orthonormal(d, r, rng) * sk.asDiagonal(), orthonormal(d, r, rng) * sv.asDiagonal();
        const Factors mlp = factorsWith(4 * d, d, Eigen::Vector3d(5, 4, 3), rng);
        const QString prefix = "base_model.model.transformer.h.0.";
        saveBytes(QDir(dir.path()).filePath("adapter_model.safetensors"),
                  safetensorsFile({tensor(prefix + "attn.c_attn.lora_A.weight", a), tensor(prefix + "attn.c_attn.lora_B.weight", b),
                                   tensor(prefix + "mlp.c_fc.lora_A.weight", mlp.a), tensor(prefix + "mlp.c_fc.lora_B.weight", mlp.b)}));
        QJsonObject config = loraConfig(r, 6, QJsonArray{"c_attn", "c_fc"});
        config["fan_in_fan_out"] = true;
        writeJson(QDir(dir.path()).filePath("adapter_config.json"), config);
        writeJson(QDir(dir.path()).filePath("config.json"), {{"model_type", "gpt2"}, {"n_head", 2}, {"n_embd", d}});

        const RunAnalysis run = RunAnalyzer(AnalysisSettings()).analyzeFolder(dir.path());
        for (const AnalysisIssue &issue : run.issues)
            QFAIL(qPrintable(issue.text()));
        const double s = 6.0 / r;
        const std::pair<MatrixType, Eigen::VectorXd> parts[] = {{MatrixType::Q, sq}, {MatrixType::K, sk}, {MatrixType::V, sv}};
        for (const auto &[type, values] : parts) {
            const MatrixResult *m = find(run, run.results.first().step, 0, type);
            QVERIFY(m);
            QCOMPARE(m->rows, d); // stored in × out: the part is d × d
            QCOMPARE(m->cols, d);
            QVERIFY2(spectrumIs(*m, s * values), qPrintable(m->tensor));
        }
        const MatrixResult *up = find(run, run.results.first().step, 0, MatrixType::MlpUp);
        QVERIFY(up);
        QCOMPARE(up->rows, d);
        QCOMPARE(up->cols, 4 * d);
        QVERIFY(spectrumIs(*up, s * Eigen::Vector3d(5, 4, 3)));

        // --base: GPT-2's Conv1D c_attn stored in × 3·out (Hugging Face's names, no transformer.
        // prefix, as the hub's gpt2 has them): merged whole, split into Q, K and V as the update is.
        QTemporaryDir baseDir;
        const Eigen::MatrixXd w0 = gaussianMatrix(d, 3 * d, rng, 0.3), fc = gaussianMatrix(d, 4 * d, rng, 0.3);
        saveBytes(QDir(baseDir.path()).filePath("model.safetensors"), safetensorsFile({tensor("h.0.attn.c_attn.weight", w0), tensor("h.0.mlp.c_fc.weight", fc)}));
        writeJson(QDir(baseDir.path()).filePath("config.json"), {{"model_type", "gpt2"}, {"n_head", 2}, {"n_embd", d}});
        RunLoadOptions options;
        options.useCache = false;
        const std::optional<RunAnalysis> merged = loadRun(dir.path(), BaseModelRuns::mergedOptions(options, dir.path(), baseDir.path())).run;
        QVERIFY(merged);
        for (const AnalysisIssue &issue : merged->issues)
            QFAIL(qPrintable(issue.text()));
        const Eigen::MatrixXd sum = w0 + s * (b * a).transpose(); // ΔW oriented as W₀: in × 3·out
        for (int k = 0; k < 3; ++k) {
            const MatrixResult *m = find(*merged, merged->results.first().step, 0, parts[k].first);
            QVERIFY(m);
            QCOMPARE(m->weights, QString("merged"));
            const Eigen::VectorXd expected = exactSingularValues(sum.middleCols(k * d, d));
            for (Eigen::Index i = 0; i < expected.size(); ++i)
                QVERIFY2(std::abs(m->singularValues[i] - expected[i]) <= 1e-6 * expected[0], qPrintable(m->tensor));
        }
    }

    // rsLoRA scales by lora_alpha / √r; rank_pattern and alpha_pattern set r and alpha per module
    // (peft get_pattern_key: a key matches a dot-aligned suffix of the module's name).
    void scalesFollowRsloraAndPatterns()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(3);
        const QString prefix = "base_model.model.model.layers.0.self_attn.";
        const Factors q = factorsWith(kHidden, kHidden, Eigen::Vector4d(4, 3, 2, 1), rng);
        const Factors k = factorsWith(kKv, kHidden, Eigen::Vector2d(2, 1), rng);
        const Factors v = factorsWith(kKv, kHidden, Eigen::Vector4d(1, 1, 1, 1), rng);
        saveBytes(QDir(dir.path()).filePath("adapter_model.safetensors"),
                  safetensorsFile({tensor(prefix + "q_proj.lora_A.weight", q.a), tensor(prefix + "q_proj.lora_B.weight", q.b),
                                   tensor(prefix + "k_proj.lora_A.weight", k.a), tensor(prefix + "k_proj.lora_B.weight", k.b),
                                   tensor(prefix + "v_proj.lora_A.weight", v.a), tensor(prefix + "v_proj.lora_B.weight", v.b)}));
        QJsonObject config = loraConfig(4, 8, QJsonArray{"q_proj", "k_proj", "v_proj"});
        config["use_rslora"] = true;
        config["rank_pattern"] = QJsonObject{{"k_proj", 2}};
        config["alpha_pattern"] = QJsonObject{{"layers.0.self_attn.v_proj", 3}, {"proj", 100}}; // "proj" matches no whole component
        writeJson(QDir(dir.path()).filePath("adapter_config.json"), config);

        const RunAnalysis run = RunAnalyzer(AnalysisSettings()).analyzeFolder(dir.path());
        for (const AnalysisIssue &issue : run.issues)
            QFAIL(qPrintable(issue.text()));
        const qint64 step = run.results.first().step;
        QVERIFY(close(find(run, step, 0, MatrixType::Q)->metrics.spectralNorm, 8.0 / 2.0 * 4));
        QVERIFY(close(find(run, step, 0, MatrixType::K)->metrics.spectralNorm, 8.0 / std::sqrt(2.0) * 2));
        QVERIFY(close(find(run, step, 0, MatrixType::V)->metrics.frobeniusNorm, 3.0 / 2.0 * 2));
    }

    // Without adapter_config.json the scale is unknown: what does not depend on it is given, the
    // norms are NaN, and a note says why.
    void withoutConfigTheNormsAreNaN()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(4);
        writeLlamaCheckpoint(dir.path(), 5, 4, {}, rng);
        const RunAnalysis run = RunAnalyzer(AnalysisSettings()).analyzeFolder(dir.path());
        QCOMPARE(run.results.size(), 14);
        const MatrixResult *q = find(run, 5, 0, MatrixType::Q);
        QVERIFY(q);
        const Eigen::VectorXd values = valuesOf(0, 0, 5, 4);
        QVERIFY(spectrumIs(*q, values)); // s = 1: the spectrum of B·A
        QVERIFY(close(q->metrics.stableRank, values.squaredNorm() / (values[0] * values[0])));
        QVERIFY(std::isnan(q->metrics.spectralNorm));
        QVERIFY(std::isnan(q->metrics.frobeniusNorm));
        QVERIFY2(run.notes.join('\n').contains("no adapter_config.json beside it gives lora_alpha"), qPrintable(run.notes.join('\n')));
    }

    // --delta between two steps is the change of the update, s·(B₂A₂ − B₁A₁), from the factors:
    // checked against a dense SVD of that difference.
    void deltaIsTheChangeOfTheUpdate()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(6);
        const QString module = "base_model.model.model.layers.0.self_attn.o_proj";
        Eigen::MatrixXd product[2];
        for (int i = 0; i < 2; ++i) {
            const Factors f{gaussianMatrix(4, kHidden, rng), gaussianMatrix(kHidden, 4, rng)};
            product[i] = 2.0 * f.b * f.a;
            const QString folder = QDir(dir.path()).filePath(QStringLiteral("checkpoint-%1").arg(10 * (i + 1)));
            QDir().mkpath(folder);
            saveBytes(QDir(folder).filePath("adapter_model.safetensors"),
                      safetensorsFile({tensor(module + ".lora_A.weight", f.a), tensor(module + ".lora_B.weight", f.b)}));
            writeJson(QDir(folder).filePath("adapter_config.json"), loraConfig(4, 8, QJsonArray{"o_proj"}));
        }
        AnalysisSettings settings;
        settings.delta = true;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path());
        for (const AnalysisIssue &issue : run.issues)
            QFAIL(qPrintable(issue.text()));
        const MatrixResult *later = find(run, 20, 0, MatrixType::O);
        QVERIFY(later);
        // float32 factors: the products as stored.
        const Eigen::VectorXd change = exactSingularValues(product[1] - product[0]);
        QCOMPARE(later->deltaSingularValues.size(), kHidden);
        for (Eigen::Index i = 0; i < change.size(); ++i)
            QVERIFY2(std::abs(later->deltaSingularValues[i] - change[i]) <= 1e-4 * change[0], qPrintable(QString::number(i)));
        QVERIFY(close(later->metrics.deltaSpectralNorm, change[0]));
        QVERIFY(std::abs(later->metrics.deltaRelFrobenius - change.norm() / exactSingularValues(product[0]).norm()) < 1e-4);
    }

    // torchtune's own adapter checkpoint (adapter_model.pt, its names: layers.N.attn.q_proj.lora_a.weight
    // [r, in], lora_b [out, r]; modules/peft/lora.py) in epoch folders: typed by torchtune's rows,
    // scaled by the adapter_config.json torchtune writes beside it. For most models torchtune also
    // writes the same adapter in PEFT's names (_checkpointer.py FullModelHFCheckpointer.save_checkpoint:
    // adapter_model.safetensors, or .bin without safe_serialization; tune_to_peft_adapter_weights
    // permutes Q's and K's rows for Hugging Face's rotary layout): read once, from the PEFT copy.
    void torchtuneAdapterEpochs_data()
    {
        QTest::addColumn<QString>("peftCopy");
        QTest::newRow("adapter_model.pt alone (Phi-3, Llama 4)") << QString();
        QTest::newRow("and adapter_model.safetensors") << QStringLiteral("adapter_model.safetensors");
        QTest::newRow("and adapter_model.bin") << QStringLiteral("adapter_model.bin");
    }
    void torchtuneAdapterEpochs()
    {
        QFETCH(QString, peftCopy);
        QTemporaryDir dir;
        std::mt19937_64 rng(8);
        const int r = 2;
        for (int epoch = 0; epoch < 2; ++epoch) {
            const QString folder = QDir(dir.path()).filePath(QStringLiteral("epoch_%1").arg(epoch));
            QDir().mkpath(folder);
            const Factors q = factorsWith(kHidden, kHidden, Eigen::Vector2d(3 + epoch, 1), rng);
            const Factors w2 = factorsWith(kHidden, kMlp, Eigen::Vector2d(5 + epoch, 2), rng);
            QList<FakeTensor> tensors;
            QList<QPair<QString, QByteArray>> storages;
            auto add = [&](const QString &name, const Eigen::MatrixXd &m) {
                const QString key = QString::number(storages.size());
                tensors.append({name, "FloatStorage", key, m.size(), 0, {m.rows(), m.cols()}, {m.cols(), 1}});
                storages.append({"archive/data/" + key, floats(m)});
            };
            add("layers.0.attn.q_proj.lora_a.weight", q.a);
            add("layers.0.attn.q_proj.lora_b.weight", q.b);
            add("layers.0.mlp.w2.lora_a.weight", w2.a);
            add("layers.0.mlp.w2.lora_b.weight", w2.b);
            QList<QPair<QString, QByteArray>> entries{{"archive/data.pkl", torchPickle(tensors, epoch)}};
            entries.append(storages);
            saveBytes(QDir(folder).filePath("adapter_model.pt"), zipArchive(entries));
            if (peftCopy.endsWith(".safetensors")) {
                // Q's rows permuted as tune_to_peft_adapter_weights does: the same spectrum.
                const Eigen::MatrixXd qb = q.b.colwise().reverse();
                saveBytes(QDir(folder).filePath(peftCopy),
                          safetensorsFile({tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", q.a),
                                           tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", qb),
                                           tensor("base_model.model.model.layers.0.mlp.down_proj.lora_A.weight", w2.a),
                                           tensor("base_model.model.model.layers.0.mlp.down_proj.lora_B.weight", w2.b)}));
            } else if (!peftCopy.isEmpty()) {
                QList<FakeTensor> peftTensors = tensors;
                const char *names[] = {"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight",
                                       "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight",
                                       "base_model.model.model.layers.0.mlp.down_proj.lora_A.weight",
                                       "base_model.model.model.layers.0.mlp.down_proj.lora_B.weight"};
                for (int i = 0; i < 4; ++i)
                    peftTensors[i].name = names[i];
                QList<QPair<QString, QByteArray>> peftEntries{{"archive/data.pkl", torchPickle(peftTensors, epoch)}};
                peftEntries.append(storages);
                saveBytes(QDir(folder).filePath(peftCopy), zipArchive(peftEntries));
            }
            writeJson(QDir(folder).filePath("adapter_config.json"), loraConfig(r, 4, QJsonArray{"q_proj", "down_proj"}));
        }
        const RunAnalysis run = RunAnalyzer(AnalysisSettings()).analyzeFolder(dir.path());
        for (const AnalysisIssue &issue : run.issues)
            QFAIL(qPrintable(issue.text()));
        QCOMPARE(run.results.size(), 4);
        for (int epoch = 0; epoch < 2; ++epoch) {
            const MatrixResult *q = find(run, epoch, 0, MatrixType::Q);
            const MatrixResult *down = find(run, epoch, 0, MatrixType::MlpDown);
            QVERIFY(q && down);
            QVERIFY2(spectrumIs(*q, 2.0 * Eigen::Vector2d(3 + epoch, 1)), qPrintable(q->tensor));
            QVERIFY2(spectrumIs(*down, 2.0 * Eigen::Vector2d(5 + epoch, 2)), qPrintable(down->tensor));
            QCOMPARE(down->rows, kHidden);
            QCOMPARE(down->cols, kMlp);
            if (!peftCopy.isEmpty())
                QVERIFY2(q->tensor.startsWith("base_model.model."), qPrintable(q->tensor));
        }
        if (!peftCopy.isEmpty()) {
            // The torchtune-named copy is named as such in the listing, not silently dropped.
            const QString listing = [&] {
                QStringList all;
                for (const SkippedFile &f : run.sidecars)
                    all << f.path + ": " + f.reason;
                return all.join('\n');
            }();
            QVERIFY2(listing.contains(QStringLiteral("epoch_1/adapter_model.pt: other: the same LoRA adapter as %1, in torchtune's names").arg(peftCopy)),
                     qPrintable(listing));
        }
    }

    // modules_to_save (peft utils/other.py ModulesToSaveWrapper.adapter_state_dict): a full copy of
    // the module, trained as a whole and saved as base_model.model.<module>.weight. Inside a layer it
    // is one of the model's own matrices (weights column empty), beside the updates of the others.
    void modulesToSaveAreTheModelsOwn()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(12);
        QJsonObject config = loraConfig(2, 4, QJsonArray{"q_proj"});
        config["modules_to_save"] = QJsonArray{"down_proj", "lm_head"};
        const QString folder = QDir(dir.path()).filePath("checkpoint-5");
        QDir().mkpath(folder);
        const Factors q = factorsWith(kHidden, kHidden, Eigen::Vector2d(3, 1), rng);
        const Eigen::VectorXd downValues = Eigen::VectorXd::LinSpaced(kHidden, 9, 1);
        const Eigen::MatrixXd down = orthonormal(kHidden, kHidden, rng) * downValues.asDiagonal() * orthonormal(kMlp, kHidden, rng).transpose();
        saveBytes(QDir(folder).filePath("adapter_model.safetensors"),
                  safetensorsFile({tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", q.a),
                                   tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", q.b),
                                   tensor("base_model.model.model.layers.0.mlp.down_proj.weight", down),
                                   tensor("base_model.model.lm_head.weight", gaussianMatrix(40, kHidden, rng))}));
        writeJson(QDir(folder).filePath("adapter_config.json"), config);
        writeJson(QDir(folder).filePath("trainer_state.json"), {{"global_step", 5}});
        const RunAnalysis run = RunAnalyzer(AnalysisSettings()).analyzeFolder(dir.path());
        for (const AnalysisIssue &issue : run.issues)
            QFAIL(qPrintable(issue.text()));
        QCOMPARE(run.results.size(), 2);
        const MatrixResult *qUpdate = find(run, 5, 0, MatrixType::Q);
        const MatrixResult *own = find(run, 5, 0, MatrixType::MlpDown);
        QVERIFY(qUpdate && own);
        QCOMPARE(qUpdate->weights, QString("update"));
        QVERIFY(spectrumIs(*qUpdate, 2.0 * Eigen::Vector2d(3, 1)));
        QCOMPARE(own->weights, QString());
        QCOMPARE(own->updateRank, 0);
        QCOMPARE(own->rows, kHidden);
        QCOMPARE(own->cols, kMlp);
        QVERIFY2(spectrumIs(*own, downValues), qPrintable(own->tensor));
        QCOMPARE(own->tensor, QString("base_model.model.model.layers.0.mlp.down_proj.weight"));
        const QString takenFor = CheckpointDiscovery::scan(dir.path()).takenFor.join('\n');
        QVERIFY2(takenFor.contains("modules_to_save down_proj, lm_head: trained whole, analysed as the model's own matrices"), qPrintable(takenFor));
    }

    // base_model_name_or_path is looked up as from_pretrained would, on this machine only: a folder,
    // else the model's repository in the Hugging Face cache (HF_HUB_CACHE), else said to be absent.
    void baseModelIsLocated()
    {
        QTemporaryDir dir, cache;
        std::mt19937_64 rng(13);
        const QString local = QDir(cache.path()).filePath("my-base");
        QDir().mkpath(local);
        const auto takenForWithBase = [&](const QString &base) {
            QJsonObject config = loraConfig(2, 4, kSevenTargets);
            config["base_model_name_or_path"] = base;
            writeLlamaCheckpoint(dir.path(), 1, 2, config, rng);
            return CheckpointDiscovery::scan(dir.path()).takenFor.join('\n');
        };
        qputenv("HF_HUB_CACHE", cache.path().toUtf8());
        QString said = takenForWithBase("meta-llama/Llama-3.2-1B");
        QVERIFY2(said.contains(QStringLiteral("base model meta-llama/Llama-3.2-1B (not on this machine: neither a folder nor in the "
                                              "Hugging Face cache at %1)").arg(cache.path())),
                 qPrintable(said));
        const QString repository = QDir(cache.path()).filePath("models--meta-llama--Llama-3.2-1B");
        QDir().mkpath(repository + "/snapshots/0123456789abcdef0123456789abcdef01234567");
        said = takenForWithBase("meta-llama/Llama-3.2-1B");
        QVERIFY2(said.contains(QStringLiteral("base model meta-llama/Llama-3.2-1B (in the local Hugging Face cache, %1: rankscope analyze "
                                              "RUN --base %1 (or File \u25b8 Add base model in the window)").arg(repository)),
                 qPrintable(said));
        said = takenForWithBase(local);
        QVERIFY2(said.contains(QStringLiteral("base model %1 (a local folder: rankscope analyze RUN --base %1").arg(local)), qPrintable(said));
        qunsetenv("HF_HUB_CACHE");
    }

    // --base: beside the updates, the merged weights W₀ + s·B·A at every step (their spectra against
    // a dense SVD of the sum, so a wrong scale, orientation or base tensor fails) and the base's W₀
    // of the adapted modules alone, each row saying which it is. The base model stores its modules
    // under its own names (HF's model.layers.N…): found by what the rules make of them.
    void baseModelMergedAndBase()
    {
        QTemporaryDir dir, baseDir;
        std::mt19937_64 rng(21);
        // The base: every Llama target of two layers, Gaussian W₀.
        QHash<QString, Eigen::MatrixXd> w0;
        QList<SafeTensor> baseTensors;
        for (int layer = 0; layer < 2; ++layer)
            for (const Target &t : kLlamaTargets) {
                const QString name = QStringLiteral("model.layers.%1.%2.weight").arg(layer).arg(t.module);
                w0.insert(name, gaussianMatrix(t.out, t.in, rng, 0.2));
                baseTensors << tensor(name, w0.value(name));
            }
        saveBytes(QDir(baseDir.path()).filePath("model.safetensors"), safetensorsFile(baseTensors));
        writeJson(QDir(baseDir.path()).filePath("config.json"), {{"model_type", "llama"}, {"num_hidden_layers", 2}});
        // The run: layer 0's q_proj and down_proj adapted, r = 2, s = 4 / 2, at steps 10 and 20.
        const double s = 2.0;
        QHash<qint64, QHash<QString, Factors>> factorsAt;
        for (qint64 step : {10, 20}) {
            const QString folder = QDir(dir.path()).filePath(QStringLiteral("checkpoint-%1").arg(step));
            QDir().mkpath(folder);
            QList<SafeTensor> adapter;
            for (const Target &t : {kLlamaTargets[0], kLlamaTargets[6]}) {
                const Factors f = factorsWith(t.out, t.in, Eigen::Vector2d(0.5 + step / 10.0, 0.25), rng);
                factorsAt[step].insert(QString::fromLatin1(t.module), f);
                const QString module = QStringLiteral("base_model.model.model.layers.0.%1").arg(t.module);
                adapter << tensor(module + ".lora_A.weight", f.a) << tensor(module + ".lora_B.weight", f.b);
            }
            saveBytes(QDir(folder).filePath("adapter_model.safetensors"), safetensorsFile(adapter));
            writeJson(QDir(folder).filePath("adapter_config.json"), loraConfig(2, 4, QJsonArray{"q_proj", "down_proj"}));
            writeJson(QDir(folder).filePath("trainer_state.json"), {{"global_step", step}});
        }
        RunLoadOptions options;
        options.useCache = false;
        const std::optional<RunAnalysis> updates = loadRun(dir.path(), options).run;
        const std::optional<RunAnalysis> merged = loadRun(dir.path(), BaseModelRuns::mergedOptions(options, dir.path(), baseDir.path())).run;
        QVERIFY(updates);
        const std::optional<RunAnalysis> base = loadRun(baseDir.path(), BaseModelRuns::baseOptions(options, dir.path(), baseDir.path(), *updates)).run;
        QVERIFY(merged && base);
        QCOMPARE(base->results.size(), 2); // the adapted matrices alone are analysed, not the base's 14
        for (const AnalysisIssue &issue : merged->issues)
            QFAIL(qPrintable(issue.text()));
        const RunAnalysis run = BaseModelRuns::joined(*updates, *merged, *base);
        QCOMPARE(run.results.size(), 4 + 4 + 2); // updates and merged at two steps; the base's two adapted matrices
        const auto rowOf = [&](const QString &weights, qint64 step, MatrixType type) -> const MatrixResult * {
            for (const MatrixResult &r : run.results)
                if (r.weights == weights && (weights == "base" || r.step == step) && r.layer == 0 && r.type == type)
                    return &r;
            return nullptr;
        };
        for (qint64 step : {10, 20})
            for (const auto &[module, type] : {std::pair{QStringLiteral("self_attn.q_proj"), MatrixType::Q}, std::pair{QStringLiteral("mlp.down_proj"), MatrixType::MlpDown}}) {
                const Factors &f = factorsAt[step][module];
                const Eigen::MatrixXd whole = w0.value("model.layers.0." + module + ".weight") + s * f.b * f.a;
                const MatrixResult *m = rowOf("merged", step, type);
                QVERIFY2(m, qPrintable(module));
                QCOMPARE(m->updateRank, 0);
                const Eigen::VectorXd expected = exactSingularValues(whole);
                QCOMPARE(m->singularValues.size(), expected.size());
                for (Eigen::Index i = 0; i < expected.size(); ++i)
                    QVERIFY2(std::abs(m->singularValues[i] - expected[i]) <= 1e-6 * expected[0], qPrintable(QStringLiteral("%1 σ%2").arg(module).arg(i)));
                QVERIFY(close(m->metrics.spectralNorm, expected[0]));
                const MatrixResult *u = rowOf("update", step, type);
                QVERIFY(u && spectrumIs(*u, s * Eigen::Vector2d(0.5 + step / 10.0, 0.25)));
                const MatrixResult *b = rowOf("base", step, type);
                QVERIFY(b);
                const Eigen::VectorXd own = exactSingularValues(w0.value("model.layers.0." + module + ".weight"));
                QVERIFY(std::abs(b->singularValues[0] - own[0]) <= 1e-6 * own[0]);
            }
        // The merged weights have a cache of their own: the run's is never replaced by them.
        QVERIFY(ResultsCacheLocation::forMergedFolder(dir.path(), baseDir.path()) != ResultsCacheLocation::forFolder(dir.path()));

        // DoRA rescales W₀: no merged weights, said; the updates and the base are still analysed.
        QJsonObject dora = loraConfig(2, 4, QJsonArray{"q_proj", "down_proj"});
        dora["use_dora"] = true;
        for (qint64 step : {10, 20})
            writeJson(QDir(dir.path()).filePath(QStringLiteral("checkpoint-%1/adapter_config.json").arg(step)), dora);
        const std::optional<RunAnalysis> refused = loadRun(dir.path(), BaseModelRuns::mergedOptions(options, dir.path(), baseDir.path())).run;
        QVERIFY(refused && refused->results.isEmpty());
        QVERIFY2(refused->issueLines().join('\n').contains("no merged weights: a DoRA adapter (use_dora) rescales"), qPrintable(refused->issueLines().join('\n')));
        // A base without the adapted module: that matrix is named, the other merged.
        QJsonObject plain = loraConfig(2, 4, QJsonArray{"q_proj", "down_proj"});
        for (qint64 step : {10, 20})
            writeJson(QDir(dir.path()).filePath(QStringLiteral("checkpoint-%1/adapter_config.json").arg(step)), plain);
        baseTensors.removeIf([](const SafeTensor &t) { return t.name == "model.layers.0.mlp.down_proj.weight"; });
        saveBytes(QDir(baseDir.path()).filePath("model.safetensors"), safetensorsFile(baseTensors));
        const std::optional<RunAnalysis> partial = loadRun(dir.path(), BaseModelRuns::mergedOptions(options, dir.path(), baseDir.path())).run;
        QVERIFY(partial);
        QCOMPARE(partial->results.size(), 2);
        QVERIFY2(partial->issueLines().join('\n').contains("has no layer 0 MLP\u2193 to merge it into"), qPrintable(partial->issueLines().join('\n')));
    }

    // --subspace of updates: ΔW's top right vectors from its factors (R's basis times the core's
    // V), as many as its rank has. Q keeps its A (the same input directions, B changed): overlap 1;
    // down_proj's A turns to orthogonal directions: overlap 0.
    void subspaceOfUpdates()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(41);
        const Eigen::MatrixXd q = randomOrthogonal(kHidden, rng), d = randomOrthogonal(kMlp, rng);
        for (qint64 step : {10, 20}) {
            const QString folder = QDir(dir.path()).filePath(QStringLiteral("checkpoint-%1").arg(step));
            QDir().mkpath(folder);
            const Eigen::MatrixXd qa = q.leftCols(2).transpose(); // the same right subspace at both steps
            const Eigen::MatrixXd qb = orthonormal(kHidden, 2, rng) * Eigen::Vector2d(step / 5.0, 1).asDiagonal();
            const Eigen::MatrixXd da = (step == 10 ? d.leftCols(2) : d.middleCols(2, 2)).transpose(); // orthogonal ones
            const Eigen::MatrixXd db = orthonormal(kHidden, 2, rng) * Eigen::Vector2d(3, 2).asDiagonal();
            saveBytes(QDir(folder).filePath("adapter_model.safetensors"),
                      safetensorsFile({tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", qa),
                                       tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", qb),
                                       tensor("base_model.model.model.layers.0.mlp.down_proj.lora_A.weight", da),
                                       tensor("base_model.model.model.layers.0.mlp.down_proj.lora_B.weight", db)}));
            writeJson(QDir(folder).filePath("adapter_config.json"), loraConfig(2, 4, QJsonArray{"q_proj", "down_proj"}));
            writeJson(QDir(folder).filePath("trainer_state.json"), {{"global_step", step}});
        }
        AnalysisSettings settings;
        settings.subspace = true;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path());
        for (const AnalysisIssue &issue : run.issues)
            QFAIL(qPrintable(issue.text()));
        const MatrixResult *qLater = find(run, 20, 0, MatrixType::Q), *dLater = find(run, 20, 0, MatrixType::MlpDown);
        QVERIFY(qLater && dLater);
        QCOMPARE(qLater->topVectors.cols(), 2); // rank 2: two directions, whatever --subspace-k asks
        QVERIFY2(std::abs(qLater->metrics.subspaceOverlap - 1) < 1e-5, qPrintable(QString::number(qLater->metrics.subspaceOverlap)));
        QVERIFY(std::abs(qLater->metrics.topVectorCosine - 1) < 1e-5);
        QVERIFY2(dLater->metrics.subspaceOverlap < 1e-5, qPrintable(QString::number(dLater->metrics.subspaceOverlap)));
        QVERIFY(std::isnan(find(run, 10, 0, MatrixType::Q)->metrics.subspaceOverlap)); // nothing before the first
    }

    // What is not a LoRA pair is named with the reason; the rest is analysed.
    void otherAdapterTensorsAreNamed()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(5);
        const QString layer = "base_model.model.model.layers.1.";
        const Factors f = factorsWith(kHidden, kHidden, Eigen::Vector4d(4, 3, 2, 1), rng);
        writeLlamaCheckpoint(dir.path(), 7, 4, loraConfig(4, 4, kSevenTargets), rng,
                             {tensor(layer + "self_attn.q_proj.hada_w1_a", gaussianMatrix(16, 4, rng)),
                              tensor("base_model.model.model.layers.2.self_attn.q_proj.lora_A.weight", f.a),
                              tensor("base_model.model.model.layers.2.self_attn.k_proj.lora_A.weight", gaussianMatrix(3, 16, rng)),
                              tensor("base_model.model.model.layers.2.self_attn.k_proj.lora_B.weight", gaussianMatrix(8, 4, rng))});
        const RunAnalysis run = RunAnalyzer(AnalysisSettings()).analyzeFolder(dir.path());
        QCOMPARE(run.results.size(), 14);
        const QString issues = [&] {
            QStringList all;
            for (const AnalysisIssue &i : run.issues)
                all << i.text();
            return all.join('\n');
        }();
        QVERIFY2(issues.contains("q_proj.hada_w1_a: a LoHa adapter factor: only LoRA adapters are read"), qPrintable(issues));
        QVERIFY2(issues.contains("layers.2.self_attn.q_proj.lora_A.weight: a LoRA factor without its B factor"), qPrintable(issues));
        QVERIFY2(issues.contains("k_proj.lora_B.weight: its A factor"), qPrintable(issues));
        QVERIFY2(issues.contains("their ranks disagree"), qPrintable(issues));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestLoraAdapters)
} // namespace tst_loraadapters

#include "tst_LoraAdapters.moc"
