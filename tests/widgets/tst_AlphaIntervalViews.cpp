// --alpha-ci as the views draw it: error bars on α's lines whose ends are the figure's intervals,
// named in the legend and the tooltip; the spectrum view's CCDF panel (its default) with x_min and
// λ₊ in its legend, the density panel a choice away; both written at paper size.
#include "analysis/execution/RunAnalyzer.h"
#include "FigureExporter.h"
#include "figures/ViewState.h"
#include "MetricLineChart.h"
#include "SpectrumView.h"
#include "TestSuite.h"

#include <QImage>
#include <QTemporaryDir>

namespace tst_alphaintervalviews {

using namespace rankscope;

namespace {

RunAnalysis demoWithIntervals()
{
    AnalysisSettings settings;
    settings.alphaCi = true;
    return RunAnalyzer(settings).analyzeFolder(QStringLiteral(RANKSCOPE_DEMO_RUN));
}

QStringList legendNames(QCPLegend *legend)
{
    QStringList names;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i)))
            names << item->plottable()->name();
    return names;
}

} // namespace

class TestAlphaIntervalViews : public QObject {
    Q_OBJECT
    ViewState m_state;
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { m_state.setRun(demoWithIntervals(), QStringLiteral("nanogpt-d4")); }

    void errorBarsEndAtTheIntervals()
    {
        MetricLineChart chart(&m_state);
        chart.setMetric(Metric::Alpha);
        const LineFigure &figure = chart.figure();
        QCOMPARE(chart.errorBars().size(), figure.series.size());
        for (qsizetype s = 0; s < figure.series.size(); ++s) {
            const LineSeries &line = figure.series[s];
            QCPErrorBars *bars = chart.errorBars()[s];
            QCOMPARE(bars->dataCount(), int(line.points.size()));
            for (int i = 0; i < bars->dataCount(); ++i) {
                const QCPErrorBarsData &e = bars->data()->at(i);
                QVERIFY(std::abs(line.points[i].value - e.errorMinus - line.intervals[i].lower) < 1e-12);
                QVERIFY(std::abs(line.points[i].value + e.errorPlus - line.intervals[i].upper) < 1e-12);
            }
        }
        QVERIFY(legendNames(chart.plot()->legend).contains(QStringLiteral("bars: 95 % interval of the mean")));
        // Another metric: no bars.
        chart.setMetric(Metric::StableRank);
        QVERIFY(chart.errorBars().isEmpty());
        QVERIFY(!legendNames(chart.plot()->legend).join(' ').contains(QStringLiteral("interval")));
    }

    void tooltipNamesTheInterval()
    {
        MetricLineChart chart(&m_state);
        chart.setMetric(Metric::Alpha);
        chart.resize(1000, 650);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.plot()->replot();
        const LineSeries &line = chart.figure().series.first();
        const QPoint pixel = chart.visibleLines().first()->coordsToPixels(line.x.last(), line.points.last().value).toPoint();
        const QString tip = chart.tooltipAt(pixel);
        QVERIFY2(tip.contains(QStringLiteral("95 % interval of the mean [%1, %2]").arg(line.intervals.last().lower, 0, 'f', 2)
                                  .arg(line.intervals.last().upper, 0, 'f', 2)), qPrintable(tip));
    }

    void spectrumShowsTheCcdfByDefault()
    {
        SpectrumView spectrum(&m_state);
        QCOMPARE(spectrum.tail(), SpectrumTail::Ccdf);
        const MatrixKey key{0, 1500, {{}, 2, MatrixType::MlpUp, {}}};
        spectrum.showMatrix(key);
        QVERIFY(spectrum.figure().curve(SpectrumCurve::Kind::Ccdf));
        QVERIFY(!spectrum.bulkGraph());
        QCOMPARE(spectrum.densityRect()->axis(QCPAxis::atLeft)->label(), QStringLiteral("P(\u039b \u2265 \u03bb)"));
        const QString names = [&] {
            QStringList all;
            for (int i = 0; i < spectrum.plot()->plottableCount(); ++i)
                all << spectrum.plot()->plottable(i)->name();
            return all.join(QStringLiteral(" | "));
        }();
        // λ₊ an entry of its own; x_min, the law's start, named in the law's entry with D and the tail.
        QVERIFY2(names.contains(QStringLiteral("\u03bb\u208a (MP edge) = ")), qPrintable(names));
        for (const char *part : {"x\u2098\u1d62\u2099 = ", "D = ", "tail "})
            QVERIFY2(spectrum.fitLegendText().contains(QString::fromUtf8(part)), qPrintable(spectrum.fitLegendText()));
        spectrum.setTail(SpectrumTail::Density);
        QVERIFY(spectrum.bulkGraph());
        QCOMPARE(spectrum.densityRect()->axis(QCPAxis::atLeft)->label(), QStringLiteral("Density p(\u03bb)"));
    }

    // Both panels at a paper size: the figure is written, and not blank.
    void bothExportAtPaperSize()
    {
        for (const SpectrumTail tail : {SpectrumTail::Ccdf, SpectrumTail::Density}) {
            SpectrumView spectrum(&m_state);
            spectrum.setTail(tail);
            spectrum.showMatrix({0, 1500, {{}, 2, MatrixType::MlpUp, {}}});
            const QString path = m_dir.filePath(tail == SpectrumTail::Ccdf ? "ccdf.png" : "density.png");
            if (qEnvironmentVariableIsSet("RANKSCOPE_KEEP_FIGURES")) // to look at them
                m_dir.setAutoRemove(false);
            QString error;
            QVERIFY2(FigureExporter::write({{&spectrum}}, path, *FigureSize::preset(QStringLiteral("two-column")), &error), qPrintable(error));
            const QImage image(path);
            QVERIFY(image.width() > 1000);
            // The right panel is drawn: over 1 % of its pixels are not the background's.
            qsizetype inked = 0;
            for (int y = 0; y < image.height(); y += 2)
                for (int x = image.width() / 2; x < image.width(); x += 2)
                    inked += image.pixel(x, y) != image.pixel(0, 0);
            QVERIFY2(inked > image.width() * image.height() / 800, qPrintable(QString::number(inked)));
        }
        MetricLineChart chart(&m_state);
        chart.setMetric(Metric::Alpha);
        QString error;
        QVERIFY2(FigureExporter::write({{&chart}}, m_dir.filePath("alpha.svg"), *FigureSize::preset(QStringLiteral("column")), &error), qPrintable(error));
    }
};

RANKSCOPE_TEST_MAIN(TestAlphaIntervalViews)
} // namespace tst_alphaintervalviews

#include "tst_AlphaIntervalViews.moc"
