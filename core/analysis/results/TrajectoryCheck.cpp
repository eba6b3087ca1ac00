#include "analysis/results/TrajectoryCheck.h"

#include <QHash>
#include <QMap>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace rankscope {

namespace {

// One checkpoint's matrices, by what identifies a matrix within the run.
struct StepMatrices {
    qint64 step = 0;
    bool unnumbered = false;
    QMap<QString, const MatrixResult *> byKey;
};

QString keyOf(const MatrixResult &r)
{
    return QStringLiteral("%1\n%2\n%3\n%4\n%5").arg(r.block).arg(r.layer).arg(int(r.type)).arg(r.expert, r.tensor);
}

QList<StepMatrices> byStep(const QList<MatrixResult> &results)
{
    QMap<qint64, StepMatrices> steps;
    for (const MatrixResult &r : results) {
        StepMatrices &s = steps[r.step];
        s.step = r.step;
        s.unnumbered = r.unnumbered;
        s.byKey.insert(keyOf(r), &r);
    }
    return steps.values();
}

QString nameOf(const StepMatrices &s)
{
    return s.unnumbered ? QStringLiteral("the final checkpoint (no step recorded)") : QStringLiteral("step %1").arg(s.step);
}

// The checkpoint's matrices as their stored bytes identify them; empty when one has no fingerprint.
QString signatureOf(const StepMatrices &s)
{
    QString signature;
    for (auto it = s.byKey.begin(); it != s.byKey.end(); ++it) {
        const MatrixResult &r = **it;
        if (r.contentHash == 0)
            return {};
        signature += QStringLiteral("%1\t%2\t%3\t%4×%5\n").arg(it.key(), QString::number(r.contentHash, 16), r.dtype).arg(r.rows).arg(r.cols);
    }
    return signature;
}

struct CheckedMetric {
    const char *name;
    double SpectralMetrics::*member;
};
constexpr std::array<CheckedMetric, 4> kCheckedMetrics{{{"spectral norm", &SpectralMetrics::spectralNorm},
                                          {"Frobenius norm", &SpectralMetrics::frobeniusNorm},
                                          {"stable rank", &SpectralMetrics::stableRank},
                                          {"effective rank", &SpectralMetrics::effectiveRank}}};

// How the matrices of one checkpoint fared on one metric.
struct Tally {
    int judged = 0, out = 0;
    double worstRatio = 0;
    QString worstTensor;
    double value = 0, before = 0, after = 0;
};

// The median of values, which it reorders.
double median(std::vector<double> &values)
{
    const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    if (values.size() % 2)
        return *mid;
    return (*mid + *std::max_element(values.begin(), mid)) / 2;
}

// One matrix's values of one metric at every checkpoint (NaN where it is absent), judged at each
// interior checkpoint against its other step-to-step changes.
void judgeSeries(const std::vector<double> &x, const QString &tensor, std::vector<Tally> &tallies)
{
    const std::size_t n = x.size();
    std::vector<double> change(n - 1);
    for (std::size_t j = 0; j + 1 < n; ++j)
        change[j] = std::abs(x[j + 1] - x[j]);
    std::vector<double> others;
    others.reserve(n);
    for (std::size_t i = 1; i + 1 < n; ++i) {
        if (!std::isfinite(x[i - 1]) || !std::isfinite(x[i]) || !std::isfinite(x[i + 1]))
            continue;
        others.clear();
        for (std::size_t j = 0; j + 1 < n; ++j)
            if (j + 1 != i && j != i && std::isfinite(change[j]))
                others.push_back(change[j]);
        if (others.size() < std::size_t(TrajectoryCheck::kMinOtherPairs))
            continue;
        const double up = x[i] - x[i - 1], down = x[i] - x[i + 1];
        const double jump = (up > 0) == (down > 0) && up != 0 && down != 0 ? std::min(std::abs(up), std::abs(down)) : 0;
        const double scale = std::max(median(others), TrajectoryCheck::kRelativeFloor * std::abs(x[i]));
        Tally &t = tallies[i];
        ++t.judged;
        const double ratio = scale > 0 ? jump / scale : (jump > 0 ? std::numeric_limits<double>::infinity() : 0);
        if (ratio <= TrajectoryCheck::kJumpFactor)
            continue;
        ++t.out;
        if (ratio > t.worstRatio)
            t = {t.judged, t.out, ratio, tensor, x[i], x[i - 1], x[i + 1]};
    }
}

QString describe(const QList<StepMatrices> &steps, std::size_t i, const std::array<std::vector<Tally>, kCheckedMetrics.size()> &tallies)
{
    QStringList flagged;
    const Tally *example = nullptr;
    const char *exampleMetric = nullptr;
    for (std::size_t m = 0; m < kCheckedMetrics.size(); ++m) {
        const Tally &t = tallies[m][i];
        if (t.judged == 0 || 2 * t.out < t.judged)
            continue;
        flagged << QStringLiteral("%1 (%2 of its %3 matrices)").arg(QLatin1String(kCheckedMetrics[m].name)).arg(t.out).arg(t.judged);
        if (!example) {
            example = &t;
            exampleMetric = kCheckedMetrics[m].name;
        }
    }
    if (flagged.isEmpty())
        return {};
    return QStringLiteral("%1 is out of line with %2 and %3: its %4 jump against both neighbours by more than %5× the run's median "
                          "step-to-step change (%6: %7 %8 against %9 and %10); check that it holds the step it is named for")
        .arg(nameOf(steps[qsizetype(i)]), nameOf(steps[qsizetype(i) - 1]), nameOf(steps[qsizetype(i) + 1]), flagged.join(QLatin1String(", ")))
        .arg(TrajectoryCheck::kJumpFactor)
        .arg(example->worstTensor, QLatin1String(exampleMetric))
        .arg(example->value, 0, 'g', 4).arg(example->before, 0, 'g', 4).arg(example->after, 0, 'g', 4);
}

} // namespace

QList<TrajectoryFinding> TrajectoryCheck::identicalCheckpoints(const QList<MatrixResult> &results)
{
    const QList<StepMatrices> steps = byStep(results);
    QList<TrajectoryFinding> found;
    QHash<QString, qsizetype> firstWith;
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const QString signature = signatureOf(steps[i]);
        if (signature.isEmpty())
            continue;
        if (const auto twin = firstWith.constFind(signature); twin != firstWith.constEnd())
            found.append({TrajectoryFinding::Kind::Identical, steps[i].step, steps[i].unnumbered,
                          QStringLiteral("%1 repeats %2: its %3 analysed matrices are bit-identical to those of %2 (the same fingerprint of their "
                                         "stored bytes; tensors that are not analysed, such as embeddings and heads, were not compared)")
                              .arg(nameOf(steps[i]), nameOf(steps[*twin])).arg(steps[i].byKey.size())});
        else
            firstWith.insert(signature, i);
    }
    return found;
}

QList<TrajectoryFinding> TrajectoryCheck::outOfLineSteps(const QList<MatrixResult> &results)
{
    const QList<StepMatrices> steps = byStep(results);
    const std::size_t n = std::size_t(steps.size());
    if (n < 3)
        return {};
    QMap<QString, QString> tensorOf; // every matrix of the run, by key
    for (const StepMatrices &s : steps)
        for (auto it = s.byKey.begin(); it != s.byKey.end(); ++it)
            tensorOf.insert(it.key(), (*it)->tensor);
    std::array<std::vector<Tally>, kCheckedMetrics.size()> tallies;
    for (std::size_t m = 0; m < kCheckedMetrics.size(); ++m) {
        tallies[m].resize(n);
        for (auto key = tensorOf.begin(); key != tensorOf.end(); ++key) {
            std::vector<double> x(n, std::numeric_limits<double>::quiet_NaN());
            for (std::size_t i = 0; i < n; ++i)
                if (const MatrixResult *r = steps[qsizetype(i)].byKey.value(key.key()))
                    x[i] = r->metrics.*kCheckedMetrics[m].member;
            judgeSeries(x, key.value(), tallies[m]);
        }
    }
    QList<TrajectoryFinding> found;
    for (std::size_t i = 1; i + 1 < n; ++i)
        if (const QString text = describe(steps, i, tallies); !text.isEmpty())
            found.append({TrajectoryFinding::Kind::OutOfLine, steps[qsizetype(i)].step, steps[qsizetype(i)].unnumbered, text});
    return found;
}

QList<TrajectoryFinding> TrajectoryCheck::of(const QList<MatrixResult> &results)
{
    return identicalCheckpoints(results) + outOfLineSteps(results);
}

} // namespace rankscope
