#include "analysis/execution/HeadSpectra.h"

#include "spectral/FactoredSpectrum.h"

#include <QMap>
#include <algorithm>
#include <vector>

namespace rankscope {

namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Head h's factor, d × head_dim. A row block (head_dim × d, row-major) read column-major is its
// transpose already; a column block is read as the rows × head_dim it is.
Eigen::MatrixXd headFactor(const MatrixBlockSource &source, const HeadCut &cut, int h)
{
    const qint64 first = h * cut.headSize;
    std::vector<double> block(size_t(cut.headSize * (cut.alongRows ? source.cols() : source.rows())));
    if (cut.alongRows) {
        source.widenBlock(first, cut.headSize, 0, source.cols(), block.data());
        return Eigen::Map<const Eigen::MatrixXd>(block.data(), source.cols(), cut.headSize);
    }
    source.widenBlock(0, source.rows(), first, cut.headSize, block.data());
    return Eigen::Map<const RowMajor>(block.data(), source.rows(), cut.headSize);
}

// The circuit of one query head from the R of its two factors: d × d.
MatrixResult circuit(const MatrixResult &left, const MatrixResult &right, MatrixType type, int head, double energy)
{
    MatrixResult c = left;
    const qint64 d = left.rows * left.cols / std::max<qint64>(1, left.headFactor.cols());
    c.type = type;
    c.head = head;
    c.tensor = left.tensor + QStringLiteral(" \u00b7 ") + right.tensor;
    c.rows = c.cols = d;
    c.contentHash = 0;
    c.headFactor = {};
    c.singularValues = productSingularValues(left.headFactor, right.headFactor);
    c.metrics = computeSpectralMetrics(c.singularValues, d, d, energy);
    return c;
}

} // namespace

QList<MatrixResult> HeadSpectra::ofMatrix(const MatrixBlockSource &source, const HeadCut &cut, const MatrixResult &base, double energy)
{
    QList<MatrixResult> rows;
    for (int h = 0; h < cut.heads; ++h) {
        const Eigen::MatrixXd factor = headFactor(source, cut, h);
        if (!factor.allFinite())
            return {};
        MatrixResult r = base;
        r.head = h;
        r.kvHead = cut.kvHeadOf(h);
        r.rows = cut.alongRows ? cut.headSize : source.rows();
        r.cols = cut.alongRows ? source.cols() : cut.headSize;
        r.contentHash = 0;
        r.headFactor = triangularFactor(factor);
        r.singularValues = smallSingularValues(r.headFactor);
        r.metrics = computeSpectralMetrics(r.singularValues, r.rows, r.cols, energy);
        rows.append(std::move(r));
    }
    return rows;
}

void HeadSpectra::addCircuits(QList<MatrixResult> &rows, double energy)
{
    // (block, layer, expert, type, head) → its row, for the rows that carry their R.
    QMap<std::tuple<QString, int, QString, int, int>, const MatrixResult *> factor;
    for (const MatrixResult &r : rows)
        if (r.isHead() && r.headFactor.size() > 0)
            factor.insert({r.block, r.layer, r.expert, int(r.type), r.head}, &r);
    QList<MatrixResult> circuits;
    for (const MatrixResult &q : rows) {
        if (!q.isHead() || q.type != MatrixType::Q || q.headFactor.size() == 0)
            continue;
        auto find = [&](MatrixType t, int head) { return factor.value({q.block, q.layer, q.expert, int(t), head}); };
        const MatrixResult *k = find(MatrixType::K, q.kvHead), *v = find(MatrixType::V, q.kvHead), *o = find(MatrixType::O, q.head);
        if (k && k->headFactor.cols() == q.headFactor.cols())
            circuits << circuit(q, *k, MatrixType::QK, q.head, energy);
        if (v && o && v->headFactor.cols() == o->headFactor.cols())
            circuits << circuit(*v, *o, MatrixType::OV, q.head, energy);
    }
    for (MatrixResult &r : rows)
        r.headFactor = {};
    rows.append(circuits);
}

} // namespace rankscope
