// Figures at the paper presets, measured as laid out for paper (FigureExporter::layOut: the very
// panels an export draws): at least as good as what a careful matplotlib user makes at the same
// size (matplotlib's figures of the demo run at the paper sizes): the legend in a row that leaves the plot the
// width, tick labels that never touch and fit the figure, at least three labelled numbers, layers
// at a regular step that keeps the first and the last, titles whole, markers scaled to the paper,
// colour bars that name their metric and never reach the edge, cell values that never collide nor
// read "-0.00", and figure (1) as one figure of two panels, each with its own layer range and the
// step window. Under a paper's caption (column, two-column): no generated title (the axes say what
// it said), the legend on the plot, one size for both axis labels, plain lines, and nothing of the
// window's selection.
#include "../core/figures/KnownMatrices.h"
#include "AxisTickers.h"
#include "DemoFixture.h"
#include "ExportCommand.h"
#include "FigureExporter.h"
#include "figures/ViewState.h"
#include "FigureView.h"
#include "LayerBarChart.h"
#include "MetricLineChart.h"
#include "TrainingCurveChart.h"
#include "RankPlanHeatmap.h"
#include "SpectrumView.h"
#include "AnalyzeCommand.h"
#include "PlotStyle.h"
#include "SpectrumOverStepsView.h"
#include "TestSuite.h"
#include "TypeLayerHeatmap.h"

#include <QRegularExpression>
#include <QTemporaryDir>

namespace tst_paperfigures {

using namespace rankscope;

namespace {

// A tick label as drawn: its text and the box it covers in the panel.
struct TickLabel {
    QString text;
    QRectF box;
};

// The labelled ticks of an axis inside its range, in order along the axis.
QList<TickLabel> tickLabels(const QCPAxis *axis)
{
    QList<TickLabel> out;
    if (!axis->visible() || !axis->tickLabels())
        return out;
    const QFontMetricsF metrics(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    for (qsizetype i = 0; i < ticks.size(); ++i) {
        if (!axis->range().contains(ticks[i]) || labels[i].isEmpty())
            continue;
        const double at = axis->coordToPixel(ticks[i]);
        const QSizeF size(metrics.horizontalAdvance(labels[i]), metrics.height());
        const QRectF box = axis->orientation() == Qt::Horizontal
                               ? QRectF(at - size.width() / 2, axis->axisRect()->bottom() + axis->offset() + axis->tickLengthOut() + axis->tickLabelPadding(), size.width(), size.height())
                               : QRectF(axis->axisRect()->left() - axis->tickLengthOut() - axis->tickLabelPadding() - size.width(), at - size.height() / 2, size.width(), size.height());
        out.append({labels[i], box});
    }
    std::sort(out.begin(), out.end(), [axis](const TickLabel &a, const TickLabel &b) {
        return axis->orientation() == Qt::Horizontal ? a.box.left() < b.box.left() : a.box.top() < b.box.top();
    });
    return out;
}

// What must hold of every axis of a panel: labels inside the panel, neighbours apart.
void checkAxis(const QCPAxis *axis, QSize panel, const QString &what)
{
    const QList<TickLabel> labels = tickLabels(axis);
    const QRectF bounds = QRectF(QPointF(0, 0), QSizeF(panel)).adjusted(-0.5, -0.5, 0.5, 0.5);
    for (qsizetype i = 0; i < labels.size(); ++i) {
        QVERIFY2(bounds.contains(labels[i].box), qPrintable(QStringLiteral("%1: tick '%2' runs off the panel").arg(what, labels[i].text)));
        if (i > 0)
            QVERIFY2(!labels[i].box.intersects(labels[i - 1].box),
                     qPrintable(QStringLiteral("%1: ticks '%2' and '%3' overlap").arg(what, labels[i - 1].text, labels[i].text)));
    }
}

// Where a colour bar's label ends on the right, as QCustomPlot lays a right axis out: the bar,
// the ticks, the widest tick label, the padding, then the label's lines.
double colourLabelEnd(const QCPColorScale *scale)
{
    const QCPAxis *axis = scale->axis();
    double widest = 0;
    const QFontMetricsF ticks(axis->tickLabelFont());
    if (axis->tickLabels())
        for (const QString &label : axis->tickVectorLabels())
            widest = std::max(widest, ticks.horizontalAdvance(label));
    const double label = axis->label().isEmpty() ? 0
                         : axis->labelPadding() + QFontMetricsF(axis->labelFont()).boundingRect(QRectF(), Qt::TextDontClip, axis->label()).height();
    return axis->axisRect()->right() + axis->offset() + axis->tickLengthOut() + (axis->tickLabels() ? axis->tickLabelPadding() + widest : 0) + label;
}

// The plot's title element.
const QCPTextElement *titleOf(const ChartView &view)
{
    for (QCPLayoutElement *element : view.plot()->plotLayout()->elements(true))
        if (auto *text = qobject_cast<QCPTextElement *>(element))
            return text;
    return nullptr;
}

} // namespace

class TestPaperFigures : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    ViewState *m_state = nullptr;

    FigureExporter::PaperFigure layOut(FigureView &view, const QString &preset) const
    {
        const FigureSize size = *FigureSize::preset(preset);
        return FigureExporter::layOut(view.panels(size.layoutSize()), size);
    }

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
    }
    void cleanup() { delete m_state; }

    void presets_data()
    {
        QTest::addColumn<QString>("figure");
        QTest::addColumn<QString>("preset");
        for (const char *figure : {"lines", "bars", "heatmaps", "spectrum", "lines+bars"})
            for (const QString &preset : FigureSize::presetNames())
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(figure, preset))) << QString::fromLatin1(figure) << preset;
    }

    // Every panel of every figure at every preset: tick labels apart and inside, titles whole and
    // inside, number axes with three labels at least, the legend in a row leaving the plot the width.
    void presets()
    {
        QFETCH(QString, figure);
        QFETCH(QString, preset);
        FigureView view(m_state, *figureOfName(figure));
        if (view.view<SpectrumView>())
            view.view<SpectrumView>()->showMatrix({0, 1500, {{}, 2, MatrixType::MlpUp, {}}});
        const FigureExporter::PaperFigure laidOut = layOut(view, preset);
        const FigureExporter::PaperPanels &rows = laidOut.panels;
        for (const auto &row : rows) // panels of one run side by side all name it, or none does
            QVERIFY2(std::all_of(row.begin(), row.end(), [&](const auto &p) { return p->titleNamesRun() == row.front()->titleNamesRun(); }),
                     qPrintable(figure + " " + preset));
        for (const auto &row : rows)
            for (const std::unique_ptr<ChartView> &panel : row) {
                const QSize size = panel->plot()->viewport().size();
                const QString title = titleOf(*panel)->text();
                QVERIFY2(!title.contains(QChar(0x2026)), qPrintable(QStringLiteral("title cut: '%1'").arg(title)));
                const QFontMetricsF titleMetrics(titleOf(*panel)->font());
                for (const QString &line : title.split('\n'))
                    QVERIFY2(titleMetrics.horizontalAdvance(line) <= size.width(), qPrintable(line));
                for (QCPAxisRect *rect : panel->plot()->axisRects())
                    for (QCPAxis *axis : rect->axes()) {
                        const QString what = QStringLiteral("%1 %2 axis '%3'").arg(figure, preset, axis->label());
                        checkAxis(axis, size, what);
                        const bool numbers = !axis->ticker().dynamicCast<QCPAxisTickerText>() && axis->visible() && axis->tickLabels();
                        if (numbers && axis->scaleType() == QCPAxis::stLinear)
                            QVERIFY2(tickLabels(axis).size() >= 3, qPrintable(what + QStringLiteral(": fewer than three labels")));
                        // A logarithmic axis of a plot is labelled at two decades at least (σ by rank, the CCDF's λ).
                        const bool plotAxis = axis->axisType() == QCPAxis::atBottom || axis->axisType() == QCPAxis::atLeft;
                        if (figure == QLatin1String("spectrum") && plotAxis && axis->visible() && axis->scaleType() == QCPAxis::stLogarithmic)
                            QVERIFY2(tickLabels(axis).size() >= 2, qPrintable(what + QStringLiteral(": fewer than two decades labelled")));
                    }
                QCPLegend *legend = panel->plot()->legend;
                if (legend->visible() && legend->itemCount() > 0 && figure != QLatin1String("spectrum")) {
                    // matplotlib's legend row above the plot: the plot keeps 80 % of the width, the legend a fifth of the height at most.
                    QVERIFY2(panel->plot()->axisRect()->outerRect().width() >= 0.8 * size.width(), qPrintable(figure + " " + preset));
                    QVERIFY2(legend->outerRect().height() <= 0.2 * size.height(), qPrintable(figure + " " + preset));
                    QVERIFY(legend->outerRect().bottom() <= panel->plot()->axisRect()->top());
                }
            }
        // Figure (1): one legend over both panels (matplotlib's fig.legend), none in either, and
        // the two plots level at the top and the bottom.
        if (figure == QLatin1String("lines+bars")) {
            const FigureSize paper = *FigureSize::preset(preset);
            QVERIFY(laidOut.legend);
            QCOMPARE(laidOut.legend->entries(), (QStringList{"Q", "K", "V", "O", "MLP\u2191", "MLP\u2193"}));
            QVERIFY2(laidOut.legend->height() <= 0.2 * paper.layoutSize().height(), qPrintable(preset));
            QCOMPARE(rows[0].size(), size_t(2));
            for (const auto &panel : rows[0])
                QVERIFY(!panel->plot()->legend->visible());
            const QRect lines = rows[0][0]->plot()->axisRect()->rect(), bars = rows[0][1]->plot()->axisRect()->rect();
            QCOMPARE(lines.top(), bars.top());
            QCOMPARE(lines.bottom(), bars.bottom());
        } else {
            QVERIFY(!laidOut.legend); // one run's panels that draw no legend, or one panel
        }
    }

    // Under a paper's caption (column, two-column) no panel has a generated title; what it said is
    // on the axes: the layers the lines average, the step of the bars and heatmaps. A slide keeps
    // its titles; compared runs' panels under a caption are titled with their run's name alone.
    void captionedFiguresHaveNoTitle()
    {
        for (const QString &preset : FigureSize::presetNames()) {
            const bool captioned = FigureSize::preset(preset)->captioned;
            QCOMPARE(captioned, preset != QLatin1String("slide"));
            for (const char *figure : {"lines", "bars", "heatmaps", "lines+bars", "spectrogram", "spectrum"}) {
                FigureView view(m_state, *figureOfName(QString::fromLatin1(figure)));
                if (view.view<SpectrumView>())
                    view.view<SpectrumView>()->showMatrix({0, 1500, {{}, 0, MatrixType::Q, {}}});
                const FigureExporter::PaperFigure laidOut = layOut(view, preset);
                for (const auto &panel : laidOut.panels[0]) {
                    const QString what = QStringLiteral("%1 %2: '%3'").arg(figure, preset, panel->shownTitle());
                    QVERIFY2(panel->shownTitle().isEmpty() == captioned, qPrintable(what));
                    if (captioned)
                        QVERIFY2(titleOf(*panel)->outerRect().height() == 0, qPrintable(what)); // no blank strip either
                    const QString x = panel->plot()->xAxis->label().replace('\n', ' '), y = panel->plot()->yAxis->label().replace('\n', ' ');
                    // Half a column is too narrow for the two lines of the whole scope: its short form.
                    const bool narrow = preset == QLatin1String("column") && QLatin1String(figure) == QLatin1String("lines+bars");
                    if (auto *spectrum = qobject_cast<SpectrumView *>(panel.get()))
                        QVERIFY2(spectrum->rankAxisLabel().contains(QStringLiteral("(layer 0 Q, final step)")) == captioned, qPrintable(what + ", σ axis " + spectrum->rankAxisLabel()));
                    else if (qobject_cast<SpectrumOverStepsView *>(panel.get()))
                        QVERIFY2(y.endsWith(QStringLiteral("(layer 0 Q)")) == captioned, qPrintable(what + QStringLiteral(", σ axis '%1'").arg(y)));
                    else if (qobject_cast<MetricLineChart *>(panel.get()))
                        QCOMPARE(y, !captioned ? QStringLiteral("Stable rank") : narrow ? QStringLiteral("Stable rank (mean)")
                                                                                        : QStringLiteral("Stable rank (mean of layers 0–3)"));
                    else
                        QCOMPARE(x, captioned ? QStringLiteral("Layer (final step)") : QStringLiteral("Layer"));
                }
            }
        }
        m_state->addComparedRun(test::demoRun(), QStringLiteral("again"));
        FigureView view(m_state, FigureKind::Bars);
        const FigureExporter::PaperFigure laidOut = layOut(view, QStringLiteral("two-column"));
        QCOMPARE(laidOut.panels[0].size(), size_t(2));
        QCOMPARE(laidOut.panels[0][0]->shownTitle(), QStringLiteral("nanogpt-d4"));
        QCOMPARE(laidOut.panels[0][1]->shownTitle(), QStringLiteral("again"));
    }

    // Layers: each one when they fit, else a regular step of 1, 2, 4, 5, 10, … from the first,
    // with the last always among them ("0/6/12" of 16 layers never again).
    void layerTicksKeepTheFirstAndTheLast()
    {
        QCOMPARE(categoryTickIndices(4, 50, 20), (QList<int>{0, 1, 2, 3}));
        QCOMPARE(categoryTickIndices(16, 10, 25), (QList<int>{0, 5, 10, 15}));
        QCOMPARE(categoryTickIndices(16, 10, 15), (QList<int>{0, 5, 10, 15}));
        QCOMPARE(categoryTickIndices(14, 10, 15), (QList<int>{0, 2, 4, 6, 8, 10, 13}));
        QCOMPARE(categoryTickIndices(32, 4, 30), (QList<int>{0, 10, 20, 31}));
        for (int count : {2, 7, 16, 24, 33, 48, 96})
            for (double spacing : {2.0, 5.0, 9.0, 20.0}) {
                const QList<int> ticks = categoryTickIndices(count, spacing, 18);
                QCOMPARE(ticks.first(), 0);
                if ((count - 1) * spacing >= 18)
                    QCOMPARE(ticks.last(), count - 1);
                for (qsizetype i = 1; i < ticks.size(); ++i)
                    QVERIFY2((ticks[i] - ticks[i - 1]) * spacing >= 18, qPrintable(QStringLiteral("%1 layers, %2 px").arg(count).arg(spacing)));
            }
        // The bars of the demo's four layers label each one, even in a column.
        FigureView bars(m_state, FigureKind::Bars);
        const FigureExporter::PaperFigure laidOut = layOut(bars, QStringLiteral("column"));
        const FigureExporter::PaperPanels &rows = laidOut.panels;
        QStringList shown;
        for (const TickLabel &t : tickLabels(rows[0][0]->plot()->xAxis))
            shown << t.text;
        QCOMPARE(shown, (QStringList{"0", "1", "2", "3"}));
    }

    // The legend row sits on the plot, as matplotlib's: no band of white between them (the plot's
    // top margin holds only the half of its top tick label that stands out), and the plot takes
    // as much of a column figure's height as matplotlib's constrained layout gives it (68 %).
    void legendSitsOnThePlot()
    {
        for (const char *figure : {"lines", "bars"}) {
            FigureView view(m_state, *figureOfName(QString::fromLatin1(figure)));
            const FigureExporter::PaperFigure laidOut = layOut(view, QStringLiteral("column"));
            const ChartView &panel = *laidOut.panels[0][0];
            const QCPLegend *legend = panel.plot()->legend;
            QVERIFY(legend->visible());
            const int gap = panel.plot()->axisRect()->top() - legend->outerRect().bottom();
            const double tickHeight = QFontMetricsF(panel.plot()->yAxis->tickLabelFont()).height();
            QVERIFY2(gap <= tickHeight, qPrintable(QStringLiteral("%1: %2 px between the legend and the plot").arg(figure).arg(gap)));
            const double share = double(panel.plot()->axisRect()->height()) / panel.plot()->viewport().height();
            QVERIFY2(share >= 0.68, qPrintable(QStringLiteral("%1: the plot has %2 of the height").arg(figure).arg(share)));
        }
    }

    // Both axis labels of every panel in one size, at every preset: a y label too long for its
    // axis breaks onto a second line rather than shrink below the x label.
    void axisLabelsShareOneSize()
    {
        for (const QString &preset : FigureSize::presetNames())
            for (const char *figure : {"lines", "bars", "heatmaps", "lines+bars", "spectrogram", "spectrum"}) {
                FigureView view(m_state, *figureOfName(QString::fromLatin1(figure)));
                const FigureExporter::PaperFigure laidOut = layOut(view, preset);
                for (const auto &panel : laidOut.panels[0]) {
                    const double x = panel->plot()->xAxis->labelFont().pointSizeF(), y = panel->plot()->yAxis->labelFont().pointSizeF();
                    QVERIFY2(x == y, qPrintable(QStringLiteral("%1 %2: x label %3 pt, y label %4 pt").arg(figure, preset).arg(x).arg(y)));
                    QCOMPARE(x, PlotStyle::labelFont(FigureSize::preset(preset)->fontPt).pointSizeF());
                }
            }
    }

    // A model of 16 or 32 layers, at every preset: each layer's bars stay in its slot, apart and
    // inside the plot (they ran into the next layer's and past the plot's ends), and every layer
    // is labelled, upright or turned up the axis, labels never touching; the heatmaps' too.
    void deepModelsKeepTheirLayers()
    {
        for (const int depth : {16, 32}) {
            RunAnalysis run;
            for (int layer = 0; layer < depth; ++layer)
                for (MatrixType type : {MatrixType::Q, MatrixType::K, MatrixType::V, MatrixType::O, MatrixType::MlpUp, MatrixType::MlpDown})
                    run.results << test::knownMatrix(100, layer, type, {2, 1, double(layer % 3)});
            sortResults(run.results);
            m_state->setRun(run, QStringLiteral("deep"));
            for (const QString &preset : FigureSize::presetNames()) {
                FigureView bars(m_state, FigureKind::Bars);
                const FigureExporter::PaperFigure laidOut = layOut(bars, preset);
                const auto *chart = static_cast<const LayerBarChart *>(laidOut.panels[0][0].get());
                const QCPAxis *x = chart->plot()->xAxis;
                const QRect plot = chart->plot()->axisRect()->rect();
                for (int layer = 0; layer < depth; ++layer) {
                    const QString what = QStringLiteral("%1 layers, %2, layer %3").arg(depth).arg(preset).arg(layer);
                    const double slotLeft = x->coordToPixel(layer - 0.5), slotRight = x->coordToPixel(layer + 0.5);
                    QList<std::pair<double, double>> spans; // each bar's left and right edge, its outline included
                    for (const QCPBars *bar : chart->bars()) {
                        const double centre = bar->dataPixelPosition(layer).x();
                        const double half = std::abs(x->coordToPixel(layer + bar->width() / 2) - x->coordToPixel(layer - bar->width() / 2)) / 2 +
                                            (bar->pen().style() == Qt::NoPen ? 0 : bar->pen().widthF() / 2);
                        spans.append({centre - half, centre + half});
                    }
                    std::sort(spans.begin(), spans.end());
                    QVERIFY2(spans.first().first >= std::max(slotLeft, double(plot.left())) - 0.01, qPrintable(what));
                    QVERIFY2(spans.last().second <= std::min(slotRight, double(plot.right() + 1)) + 0.01, qPrintable(what));
                    for (qsizetype i = 1; i < spans.size(); ++i)
                        QVERIFY2(spans[i].first >= spans[i - 1].second - 0.01, qPrintable(what + QStringLiteral(": bars overlap")));
                }
                FigureView heatmaps(m_state, FigureKind::Heatmaps);
                const FigureExporter::PaperFigure cells = layOut(heatmaps, preset);
                for (const ChartView *panel : {laidOut.panels[0][0].get(), cells.panels[0][0].get()}) {
                    const QCPAxis *layers = panel->plot()->xAxis;
                    const QString what = QStringLiteral("%1 layers, %2, %3").arg(depth).arg(preset, panel->metaObject()->className());
                    QStringList shown;
                    QList<double> at;
                    for (qsizetype i = 0; i < layers->tickVector().size(); ++i)
                        if (layers->range().contains(layers->tickVector()[i]) && !layers->tickVectorLabels()[i].isEmpty()) {
                            shown << layers->tickVectorLabels()[i];
                            at << layers->coordToPixel(layers->tickVector()[i]);
                        }
                    // Every layer, unless its column is narrower than a 5 pt digit turned up the axis (two
                    // heatmaps of 16 layers in one paper column): then the first and the last at least.
                    QFont smallest = PlotStyle::tickFont(5);
                    const double column = std::abs(layers->coordToPixel(1) - layers->coordToPixel(0));
                    if (column >= QFontMetricsF(smallest).capHeight() + 1.5)
                        QVERIFY2(shown.size() == depth, qPrintable(what + QStringLiteral(": %1 labelled").arg(shown.join(' '))));
                    else
                        QVERIFY2(shown.first() == QLatin1String("0") && shown.last() == QString::number(depth - 1), qPrintable(what));
                    const QFontMetricsF metrics(layers->tickLabelFont());
                    // Upright labels need their width between centres; turned ones their digits' height.
                    const double need = layers->tickLabelRotation() == 0 ? metrics.horizontalAdvance(QString::number(depth - 1)) : metrics.capHeight();
                    for (qsizetype i = 1; i < at.size(); ++i)
                        QVERIFY2(at[i] - at[i - 1] >= need + 1, qPrintable(what + QStringLiteral(": labels %1 and %2 touch").arg(shown[i - 1], shown[i])));
                    QVERIFY2(layers->tickLabelFont().pointSizeF() >= 5, qPrintable(what));
                }
            }
        }
    }

    // Lines and markers follow the paper's font: thin in a column, thicker on a slide.
    void markersScaleWithThePreset()
    {
        MetricLineChart lines(m_state);
        auto marker = [&](const QString &preset) {
            const FigureSize size = *FigureSize::preset(preset);
            const std::unique_ptr<ChartView> copy = lines.paperCopy({size.layoutSize(), size.fontPt, false});
            const auto *chart = static_cast<const MetricLineChart *>(copy.get());
            return std::pair{chart->visibleLines().first()->scatterStyle().size(), chart->visibleLines().first()->pen().widthF()};
        };
        const auto [columnMarker, columnPen] = marker(QStringLiteral("column"));
        const auto [slideMarker, slidePen] = marker(QStringLiteral("slide"));
        QVERIFY2(columnMarker <= 5.5, qPrintable(QString::number(columnMarker)));
        QVERIFY(columnPen <= 1.6);
        QVERIFY(slideMarker > 1.8 * columnMarker);
        QVERIFY(slidePen > 1.8 * columnPen);
    }

    // The colour bar names its metric only (what its range spans is the window's choice, not the
    // figure's), at every preset, and its label ends inside the panel, off the figure's edge.
    void colourBarsNameTheMetricOnly()
    {
        // One run's two panels side by side, and two runs' four in two rows (shorter bars; in a
        // column too short for any label).
        for (const bool compared : {false, true})
        for (const QString &preset : FigureSize::presetNames()) {
            if (compared && preset == QLatin1String("column"))
                continue;
            if (compared && m_state->visibleRuns().size() == 1)
                m_state->addComparedRun(test::demoRun(), QStringLiteral("again"));
            FigureView view(m_state, FigureKind::Heatmaps);
            const FigureExporter::PaperFigure laidOut = layOut(view, preset);
            const FigureExporter::PaperPanels &rows = laidOut.panels;
            const QList<QStringList> metrics{{QStringLiteral("Compression % (\u03c4 = 0.90)"), QStringLiteral("Compression %")},
                                             {QString::fromUtf8("Weighted \u03b1")}};
            for (size_t i = 0; i < rows.size() * rows[0].size(); ++i) {
                const size_t metric = compared ? i / rows[0].size() : i;
                const auto *heatmap = static_cast<const TypeLayerHeatmap *>(compared ? rows[metric][i % rows[0].size()].get() : rows[0][i].get());
                const QString label = heatmap->colorScale()->axis()->label().replace('\n', ' ');
                QVERIFY2(metrics[int(metric)].contains(label), qPrintable(preset + ": " + label));
                const double end = colourLabelEnd(heatmap->colorScale());
                QVERIFY2(end <= heatmap->plot()->viewport().width() - 2,
                         qPrintable(QStringLiteral("%1: '%2' ends at %3 of %4").arg(preset, label).arg(end).arg(heatmap->plot()->viewport().width())));
            }
        }
    }

    // Cell values are rounded to fit, never touch, never read "-0.00", and sit in their cells; a
    // cell too small for any says so in a note under the plot, the axis keeping its label.
    void cellValuesNeverCollide()
    {
        QCOMPARE(HeatmapCellTexts::valueText(-0.001), QStringLiteral("0.00"));
        QCOMPARE(HeatmapCellTexts::valueText(-0.04, 1), QStringLiteral("0.0"));
        QCOMPARE(HeatmapCellTexts::valueText(-0.39), QStringLiteral("-0.39"));
        QCOMPARE(HeatmapCellTexts::valueText(85.94), QStringLiteral("85.9"));
        QCOMPARE(HeatmapCellTexts::valueText(85.94, 1), QStringLiteral("86"));
        static const QRegularExpression negativeZero(QStringLiteral(R"(^-0(\.0*)?$)"));
        for (const QString &preset : FigureSize::presetNames()) {
            FigureView view(m_state, FigureKind::Heatmaps);
            const FigureExporter::PaperFigure laidOut = layOut(view, preset);
            const FigureExporter::PaperPanels &rows = laidOut.panels;
            for (const std::unique_ptr<ChartView> &panel : rows[0]) {
                const auto *heatmap = static_cast<const TypeLayerHeatmap *>(panel.get());
                QList<QRectF> boxes;
                const double cellWidth = std::abs(heatmap->plot()->xAxis->coordToPixel(1) - heatmap->plot()->xAxis->coordToPixel(0));
                for (QCPItemText *text : heatmap->cellTexts()) {
                    QVERIFY2(!negativeZero.match(text->text()).hasMatch(), qPrintable(text->text()));
                    const QFontMetricsF metrics(text->font());
                    const QPointF at = text->position->pixelPosition();
                    const QRectF box(at.x() - metrics.horizontalAdvance(text->text()) / 2, at.y() - metrics.height() / 2,
                                     metrics.horizontalAdvance(text->text()), metrics.height());
                    QVERIFY2(box.width() < cellWidth, qPrintable(preset + ": " + text->text()));
                    for (const QRectF &other : boxes)
                        QVERIFY2(!box.intersects(other), qPrintable(preset + ": " + text->text()));
                    boxes << box;
                }
                QVERIFY(heatmap->valuesNote().isEmpty()); // on paper: values or none, never a note
                // In a column the compression % values lose their decimal to fit ("86", not none).
                if (preset == QLatin1String("column") && panel == rows[0].front()) {
                    QVERIFY(heatmap->cellTextCount() > 0);
                    QVERIFY(!heatmap->cellTexts().first()->text().contains(QLatin1Char('.')));
                }
                // Under a caption the layer axis says the step the title would have.
                QCOMPARE(heatmap->plot()->xAxis->label().replace('\n', ' '),
                         FigureSize::preset(preset)->captioned ? QStringLiteral("Layer (final step)") : QStringLiteral("Layer"));
            }
        }
        // A figure too small for any value: none drawn, and no note on paper.
        FigureView small(m_state, FigureKind::Heatmaps);
        FigureSize tiny = FigureSize::fromPixels(300, 140);
        tiny.fontPt = 8;
        const FigureExporter::PaperFigure laidOut = FigureExporter::layOut(small.panels(tiny.layoutSize()), tiny);
        const FigureExporter::PaperPanels &rows = laidOut.panels;
        const auto *heatmap = static_cast<const TypeLayerHeatmap *>(rows[0][0].get());
        QCOMPARE(heatmap->cellTextCount(), 0);
        QVERIFY(heatmap->valuesNote().isEmpty());
        QVERIFY(!heatmap->plot()->xAxis->label().contains(QStringLiteral("room")));
        // In the window the note says why, under the plot, and goes when the cells grow again.
        TypeLayerHeatmap window(m_state, Metric::CompressionPct);
        window.resize(260, 150);
        window.show();
        window.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(window.cellTextCount(), 0);
        QVERIFY(window.valuesNote().contains(QStringLiteral("hover")));
        const QRect note = window.valuesNoteRect();
        QVERIFY(note.top() >= window.plot()->axisRect()->outerRect().bottom());
        QVERIFY(QRect(QPoint(0, 0), window.plot()->viewport().size()).contains(note));
        window.resize(900, 600);
        window.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(window.cellTextCount() > 0);
        QVERIFY(window.valuesNote().isEmpty());
    }

    // What marks the window's state is not exported: the clicked cell's box, the clicked bar's outline.
    void exportsLeaveTheSelectionOut()
    {
        m_state->setHighlighted(MatrixKey{0, 1500, {{}, 1, MatrixType::K, {}}});
        FigureView heatmaps(m_state, FigureKind::Heatmaps);
        QVERIFY(heatmaps.viewsOf<TypeLayerHeatmap>().first()->isHighlightShown()); // in the window
        FigureView bars(m_state, FigureKind::Bars);
        const QColor emphasis = PlotStyle::Theme::paper().emphasis;
        QCOMPARE(bars.viewsOf<LayerBarChart>().first()->barsOf(MatrixType::K)->pen().color(), emphasis);
        for (const QString &preset : FigureSize::presetNames()) {
            const FigureExporter::PaperFigure cells = layOut(heatmaps, preset);
            for (const auto &panel : cells.panels[0])
                QVERIFY2(!static_cast<const TypeLayerHeatmap *>(panel.get())->isHighlightShown(), qPrintable(preset));
            const FigureExporter::PaperFigure laidOut = layOut(bars, preset);
            for (const QCPBars *bar : static_cast<const LayerBarChart *>(laidOut.panels[0][0].get())->bars())
                QVERIFY2(bar->pen().color() != emphasis, qPrintable(preset + ": " + bar->name()));
        }
    }

    // The spectrum's logarithmic axes are labelled at two decades at least, apart, at every preset,
    // for a matrix whose eigenvalues span five decades too (layer 0's Q: a column's λ axis was bare).
    void spectrumDecadesAreLabelled()
    {
        for (const MatrixType type : {MatrixType::Q, MatrixType::MlpUp})
            for (const QString &preset : FigureSize::presetNames()) {
                FigureView view(m_state, FigureKind::Spectrum);
                view.view<SpectrumView>()->showMatrix({0, 1500, {{}, type == MatrixType::Q ? 0 : 2, type, {}}});
                const FigureExporter::PaperFigure laidOut = layOut(view, preset);
                const ChartView &panel = *laidOut.panels[0][0];
                for (QCPAxisRect *rect : panel.plot()->axisRects())
                    for (QCPAxis *axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
                        if (!axis->visible() || axis->scaleType() != QCPAxis::stLogarithmic)
                            continue;
                        const QString what = QStringLiteral("%1 %2 '%3'").arg(displayLabel(type), preset, axis->label());
                        const QList<TickLabel> labels = tickLabels(axis);
                        QVERIFY2(labels.size() >= 2, qPrintable(what));
                        checkAxis(axis, panel.plot()->viewport().size(), what);
                        // Apart by a few pixels, never touching ("0.00010.01").
                        for (qsizetype i = 1; i < labels.size(); ++i)
                            QVERIFY2(axis->orientation() == Qt::Vertical ? labels[i].box.top() - labels[i - 1].box.bottom() >= 0
                                                                         : labels[i].box.left() - labels[i - 1].box.right() >= 4,
                                     qPrintable(what + ": " + labels[i - 1].text + " " + labels[i].text));
                    }
            }
    }

    // The rank plan's colour bar is drawn at every preset: in a column its label left it no width.
    void rankPlanColourBarHasWidth()
    {
        for (const QString &preset : FigureSize::presetNames()) {
            FigureView view(m_state, FigureKind::RankPlan);
            FigureOptions options;
            options.rankTarget = RankTarget{RankTarget::Kind::Keep, 0.5};
            QCOMPARE(view.configure(*m_state, options), QString());
            const FigureExporter::PaperFigure laidOut = layOut(view, preset);
            const auto *ranks = static_cast<const RankPlanHeatmap *>(laidOut.panels[0][0].get());
            QVERIFY2(ranks->colorScale()->axis()->axisRect()->width() >= 6, qPrintable(preset + QString(": %1").arg(ranks->colorScale()->axis()->axisRect()->width())));
        }
    }

    // One line per layer (a colour bar instead of a legend): the plot and its bar fill the panel
    // at every preset. The empty legend left below the plot capped its column at two thirds of it.
    void linesByLayerFillThePanel()
    {
        for (const QString &preset : FigureSize::presetNames()) {
            FigureView view(m_state, FigureKind::Lines);
            view.view<MetricLineChart>()->setPerLayerType(MatrixType::MlpUp);
            const FigureExporter::PaperFigure laidOut = layOut(view, preset);
            const ChartView &panel = *laidOut.panels[0][0];
            const int width = panel.plot()->viewport().width();
            QVERIFY2(panel.plot()->axisRect()->outerRect().width() >= 0.7 * width, qPrintable(preset));
            QCOMPARE(panel.plot()->plotLayout()->outerRect().width(), width);
            QVERIFY(!panel.plot()->legend->visible());
            QVERIFY2(tickLabels(panel.plot()->xAxis).size() >= 3, qPrintable(preset));
        }
    }

    // Under a caption the lines are plain, as matplotlib draws them: no marker on every point (K's
    // hid Q's line) and no casing; a slide keeps its markers.
    void captionedLinesArePlain()
    {
        for (const QString &preset : FigureSize::presetNames()) {
            FigureView view(m_state, FigureKind::Lines);
            const FigureExporter::PaperFigure laidOut = layOut(view, preset);
            const auto *chart = static_cast<const MetricLineChart *>(laidOut.panels[0][0].get());
            const double lineWidth = chart->visibleLines().first()->pen().widthF();
            int marked = 0, wider = 0;
            for (int i = 0; i < chart->plot()->graphCount(); ++i) {
                const QCPGraph *graph = chart->plot()->graph(i);
                marked += !graph->scatterStyle().isNone();
                wider += graph->pen().style() != Qt::NoPen && graph->pen().widthF() > lineWidth;
            }
            if (FigureSize::preset(preset)->captioned)
                QVERIFY2(marked == 0 && wider == 0, qPrintable(QStringLiteral("%1: %2 marked, %3 cased").arg(preset).arg(marked).arg(wider)));
            else
                QVERIFY2(marked >= 6, qPrintable(preset));
        }
        // A compared run of one checkpoint (a base model beside its fine-tuning) is its markers:
        // a line of one point without them would not be drawn at all.
        RunAnalysis one;
        for (const MatrixResult &r : m_state->results())
            if (r.step == 0)
                one.results << r;
        m_state->addComparedRun(one, QStringLiteral("base"));
        FigureView view(m_state, FigureKind::Lines);
        const FigureExporter::PaperFigure laidOut = layOut(view, QStringLiteral("column"));
        int marked = 0;
        for (int i = 0; i < laidOut.panels[0][0]->plot()->graphCount(); ++i) {
            const QCPGraph *graph = laidOut.panels[0][0]->plot()->graph(i);
            marked += !graph->scatterStyle().isNone() && graph->dataCount() == 1;
        }
        QCOMPARE(marked, 6); // one per type
    }

    // Figure (1): the lines of layer 0 beside the bars of every layer, one figure, each panel with
    // its own layer range; the lines in a step window.
    // The training curve under the lines (lines+curves): one step axis, numbered and labelled once
    // under the curve as matplotlib's sharex leaves it; the lines' y label keeps the quantity whole
    // where its qualifier does not fit ("Stable rank", not "Stable rank (m…").
    void linesOverTheCurveShareTheStepAxis()
    {
        ScalarLog log;
        log.add(QStringLiteral("loss"), QStringLiteral("trainer_state.json"), {{0, 4}, {500, 3}, {1500, 2}});
        m_state->setScalarLog(log);
        FigureView view(m_state, FigureKind::Lines);
        view.view<TrainingCurveChart>()->setTag(QStringLiteral("loss"));
        for (const QString &preset : {QStringLiteral("column"), QStringLiteral("two-column"), QStringLiteral("slide")}) {
            const FigureExporter::PaperFigure laidOut = layOut(view, preset);
            QCOMPARE(laidOut.panels.size(), size_t(2));
            const QCustomPlot *lines = laidOut.panels[0].front()->plot();
            const QCustomPlot *curve = laidOut.panels[1].front()->plot();
            QVERIFY2(!lines->xAxis->tickLabels() && lines->xAxis->label().isEmpty(), qPrintable(preset));
            QVERIFY2(curve->xAxis->tickLabels() && curve->xAxis->label() == QStringLiteral("Training step"), qPrintable(preset));
            QCOMPARE(lines->axisRect()->left(), curve->axisRect()->left());
            const QString yLabel = QString(lines->yAxis->label()).replace('\n', ' ');
            QVERIFY2(yLabel.startsWith(QStringLiteral("Stable rank")) && !yLabel.contains(QChar(0x2026)), qPrintable(preset + ": " + yLabel));
        }
    }

    void linesAndBarsIsOneFigure()
    {
        m_state->setLayerRange(LayerView::Lines, LayerRange{0, 0});
        FigureView view(m_state, FigureKind::LinesAndBars);
        view.view<MetricLineChart>()->setStepWindow(StepWindow{0, 600});
        const QList<QList<ChartView *>> rows = view.panels();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows[0].size(), 2);
        QVERIFY(qobject_cast<MetricLineChart *>(rows[0][0]));
        auto *bars = qobject_cast<LayerBarChart *>(rows[0][1]);
        QVERIFY(bars);
        QVERIFY2(rows[0][0]->title().contains(QStringLiteral("layer 0")), qPrintable(rows[0][0]->title()));
        QCOMPARE(bars->title(), QStringLiteral("Compression % by layer at final step 1500 — nanogpt-d4"));
        QCOMPARE(bars->bars().first()->data()->size(), 4);
        for (const LineSeries &series : view.view<MetricLineChart>()->figure().series) {
            QVERIFY(!series.points.isEmpty());
            QVERIFY(series.points.last().step <= 600);
        }
        QVERIFY(view.view<MetricLineChart>()->figure().xRange->upper < 700);
        // The shared range leaves the lines' own alone.
        m_state->setLayerRange(LayerRange{1, 2});
        QVERIFY(rows[0][0]->title().contains(QStringLiteral("layer 0")));
        QVERIFY(bars->title().contains(QStringLiteral("layers 1–2")));
        m_state->setLayerRange(LayerView::Lines, std::nullopt);
        QVERIFY(rows[0][0]->title().contains(QStringLiteral("layers 1–2")));
    }

    void linesAndBarsFromTheCommandLine()
    {
        const QString out = m_dir.filePath(QStringLiteral("figure1.svg"));
        QCOMPARE(runExportCommand({"export", RANKSCOPE_DEMO_RUN, "--figure", "lines+bars", "--line-layers", "0", "--steps", "0-600",
                                   "--preset", "two-column", "--out", out}),
                 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(file.readAll());
        QVERIFY(svg.contains(QStringLiteral("Training step")));
        QVERIFY(svg.contains(QStringLiteral("Layer")));
        QCOMPARE(runExportCommand({"export", RANKSCOPE_DEMO_RUN, "--figure", "lines", "--steps", "2000-3000", "--out", out}), 1);
        // Nothing to draw in any panel (a metric the results file never computed, no layer in range):
        // refused, no picture of the reason. (A folder computes the metric its figure draws.)
        const QString none = m_dir.filePath(QStringLiteral("none.png"));
        const QString plain = m_dir.filePath(QStringLiteral("plain.h5"));
        QCOMPARE(runAnalyzeCommand({"analyze", RANKSCOPE_DEMO_RUN, "--results", plain, "--quiet"}), 0);
        QCOMPARE(runExportCommand({"export", plain, "--figure", "lines", "--metric", "delta_stable_rank", "--out", none}), 1);
        QCOMPARE(runExportCommand({"export", RANKSCOPE_DEMO_RUN, "--figure", "bars", "--layers", "7", "--out", none}), 1);
        QVERIFY(!QFileInfo::exists(none));
        // A folder's figure asks for what its metric needs (the change from the first checkpoint).
        const QString change = m_dir.filePath(QStringLiteral("change.png"));
        QCOMPARE(runExportCommand({"export", RANKSCOPE_DEMO_RUN, "--figure", "lines", "--metric", "delta_stable_rank", "--out", change}), 0);
        QVERIFY(QFileInfo(change).size() > 0);
        const auto parsed = parseExportOptions({"export", RANKSCOPE_DEMO_RUN, "--figure", "lines", "--steps", "a-b", "--out", out});
        QVERIFY(!parsed.options);
    }
};

RANKSCOPE_TEST_MAIN(TestPaperFigures)
} // namespace tst_paperfigures

#include "tst_PaperFigures.moc"
