// Exported figures are complete: SVG is real XML with text kept as text, legend labels, axis
// titles and a path per visible series; PNG has the requested pixels; PDF is a PDF.
#include "DemoFixture.h"
#include "ExportCommand.h"
#include "FigureExporter.h"
#include "figures/ViewState.h"
#include "FigureView.h"
#include "LayerBarChart.h"
#include "MainWindow.h"
#include "MetricLineChart.h"
#include "PlotStyle.h"
#include "RunStepView.h"
#include "SpectrumOverStepsView.h"
#include "SpectrumView.h"
#include "TestSuite.h"
#include "TypeLayerHeatmap.h"
#include "TypeStyle.h"

#include <QImage>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QRegularExpression>
#include <QXmlStreamReader>

namespace tst_figureexport {

using namespace rankscope;

namespace {

struct SvgContent {
    bool wellFormed = false;
    QStringList texts;
    QStringList pathStrokes; // stroke colour of every <path>
    // Qt writes a run of text per script (a Greek letter starts a new <text>): read them in order.
    QString allText() const { return texts.join(QString()); }
};

SvgContent readSvg(const QString &path)
{
    SvgContent svg;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return svg;
    QXmlStreamReader xml(&file);
    QString strokeOfGroup;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        // QSvgGenerator puts the pen on the enclosing <g>; a path may also carry its own.
        if (xml.name() == QLatin1String("g"))
            strokeOfGroup = xml.attributes().value("stroke").toString().toLower();
        else if (xml.name() == QLatin1String("path") || xml.name() == QLatin1String("polyline"))
            svg.pathStrokes << (xml.attributes().hasAttribute("stroke") ? xml.attributes().value("stroke").toString().toLower() : strokeOfGroup);
        else if (xml.name() == QLatin1String("text"))
            svg.texts << xml.readElementText(QXmlStreamReader::IncludeChildElements);
    }
    svg.wellFormed = !xml.hasError();
    return svg;
}

// Every text of an SVG with the box it covers in the figure's coordinates.
struct PlacedText {
    QString text;
    QRectF box;
};

QList<PlacedText> placedTexts(const QString &path, QSizeF *figureSize)
{
    QList<PlacedText> out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return out;
    QXmlStreamReader xml(&file);
    QList<QTransform> stack{QTransform()};
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isEndElement() && xml.name() == QLatin1String("g"))
            stack.removeLast();
        if (!xml.isStartElement())
            continue;
        const QXmlStreamAttributes a = xml.attributes();
        if (xml.name() == QLatin1String("svg")) {
            const QStringList box = a.value("viewBox").toString().split(' ');
            *figureSize = QSizeF(box.value(2).toDouble(), box.value(3).toDouble());
        } else if (xml.name() == QLatin1String("g")) {
            QTransform t;
            static const QRegularExpression matrix(QStringLiteral(R"(matrix\(([^,]+),([^,]+),([^,]+),([^,]+),([^,]+),([^)]+)\))"));
            if (const auto m = matrix.match(a.value("transform").toString()); m.hasMatch())
                t = QTransform(m.captured(1).toDouble(), m.captured(2).toDouble(), m.captured(3).toDouble(), m.captured(4).toDouble(),
                               m.captured(5).toDouble(), m.captured(6).toDouble());
            stack.append(t * stack.last());
        } else if (xml.name() == QLatin1String("text")) {
            QFont font(a.value("font-family").toString());
            font.setPixelSize(qRound(a.value("font-size").toDouble()));
            font.setWeight(a.value("font-weight").toInt() >= 600 ? QFont::DemiBold : QFont::Normal);
            const QPointF at(a.value("x").toDouble(), a.value("y").toDouble());
            const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            const QFontMetricsF metrics(font);
            const QRectF local(at.x(), at.y() - metrics.ascent(), metrics.horizontalAdvance(text), metrics.ascent() + metrics.descent());
            if (!text.trimmed().isEmpty())
                out.append({text, stack.last().mapRect(local)});
        }
    }
    return out;
}

} // namespace

class TestFigureExport : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    ViewState *m_state = nullptr;

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
    }
    void cleanup() { delete m_state; }

    void svgHasLegendAxisTitlesAndAPathPerSeries()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 600);
        m_state->setTypeVisible(MatrixType::K, false);
        const QString path = m_dir.filePath("lines.svg");
        QString error;
        QVERIFY2(FigureExporter::write({{&chart}}, path, FigureSize::fromPixels(1000, 600), &error), qPrintable(error));
        const SvgContent svg = readSvg(path);
        QVERIFY(svg.wellFormed);
        for (const char *label : {"Q", "V", "O", "MLP\u2191", "MLP\u2193"})
            QVERIFY2(svg.texts.contains(QString::fromUtf8(label)), label);
        QVERIFY(svg.texts.contains("K")); // the hidden type stays in the legend, greyed
        QVERIFY(svg.texts.contains("Training step"));
        QVERIFY(svg.texts.contains("Stable rank"));
        QVERIFY(svg.texts.contains("Stable rank vs training step, mean of layers 0–3 — nanogpt-d4"));
        for (MatrixType type : {MatrixType::Q, MatrixType::V, MatrixType::O, MatrixType::MlpUp, MatrixType::MlpDown})
            QVERIFY2(svg.pathStrokes.contains(colourHex(type).toLower()), qPrintable(colourHex(type)));
        // Hidden K draws no line: its colour strokes only the legend's grey-free icon.
        QVERIFY(svg.pathStrokes.count(colourHex(MatrixType::K).toLower()) <= 1);
    }

    void pngHasTheRequestedPixelsAndPdfIsAPdf()
    {
        LayerBarChart bars(m_state);
        const QString png = m_dir.filePath("bars.png");
        QString error;
        QVERIFY2(FigureExporter::write({{&bars}}, png, FigureSize::fromPixels(800, 500, 2), &error), qPrintable(error));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1600, 1000));
        // Not blank: the bars put the types' colours in the image.
        bool sawQ = false;
        for (int y = 0; y < image.height() && !sawQ; y += 4)
            for (int x = 0; x < image.width() && !sawQ; x += 4)
                sawQ = image.pixelColor(x, y) == QColor(colourHex(MatrixType::Q));
        QVERIFY(sawQ);

        const QString pdf = m_dir.filePath("bars.pdf");
        QVERIFY(FigureExporter::write({{&bars}}, pdf, FigureSize::fromPixels(800, 500), &error));
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
        QVERIFY(!FigureExporter::write({{&bars}}, m_dir.filePath("bars.bmp"), FigureSize::fromPixels(800, 500), &error));
        QVERIFY(error.contains("png, svg or pdf"));
    }

    void darkExportsOnlyWhenAsked()
    {
        MetricLineChart chart(m_state);
        m_state->setDarkTheme(true); // the window's theme does not make a paper figure dark
        const QString light = m_dir.filePath("light.png"), dark = m_dir.filePath("dark.png");
        QString error;
        FigureSize size = FigureSize::fromPixels(600, 400);
        QVERIFY2(FigureExporter::write({{&chart}}, light, size, &error), qPrintable(error));
        size.dark = true;
        QVERIFY2(FigureExporter::write({{&chart}}, dark, size, &error), qPrintable(error));
        QCOMPARE(QImage(light).pixelColor(3, 3), QColor(Qt::white));
        QCOMPARE(QImage(dark).pixelColor(3, 3), PlotStyle::Theme::darkTheme().background);
        m_state->setDarkTheme(false);
    }

    void heatmapPairIsOneFigureWithBothScales()
    {
        TypeLayerHeatmap left(m_state, Metric::CompressionPct), right(m_state, Metric::WeightedAlpha);
        const QString path = m_dir.filePath("heatmaps.svg");
        QString error;
        QVERIFY(FigureExporter::write({{&left, &right}}, path, FigureSize::fromPixels(1400, 600), &error));
        const SvgContent svg = readSvg(path);
        QVERIFY(svg.wellFormed);
        QVERIFY(svg.texts.contains("Compression % at final step 1500 — nanogpt-d4"));
        QVERIFY(svg.allText().contains("Weighted α at final step 1500 — nanogpt-d4"));
        QVERIFY(svg.allText().contains("Compression % (τ = 0.90)"));
        // A cell's value, as text, from the expected CSV: layer 0's Q at the last step.
        const double q0 = test::expectedMetrics().value(QStringLiteral("1500/0/Q")).value(QStringLiteral("compression_pct"));
        QVERIFY(q0 > 0);
        QVERIFY2(svg.texts.contains(QString::number(q0, 'f', 1)), qPrintable(QString::number(q0, 'f', 1)));
    }

    void theDataBehindEachView()
    {
        MetricLineChart lines(m_state);
        QStringList rows = lines.dataCsv().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.first(), QStringLiteral("run,step,block,type,stable_rank_mean,stable_rank_min,stable_rank_max,matrices,nan_matrices"));
        QCOMPARE(rows.size(), 1 + 6 * 6); // 6 types × 6 steps
        QVERIFY(rows.contains(QRegularExpression("^nanogpt-d4,1500,,Q,[0-9.]+,[0-9.]+,[0-9.]+,4,0$")));
        LayerBarChart bars(m_state);
        rows = bars.dataCsv().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.first(), QStringLiteral("step,block,layer,type,expert,tensor,rows,cols,value,run,metric"));
        QCOMPARE(rows.size(), 1 + 4 * 6);
        QVERIFY(rows.contains("1500,,2,MLP_UP,,transformer.h.2.mlp.c_fc.weight,256,64,35.9375,nanogpt-d4,compression_pct"));
        // A figure of several panels (two metrics' heatmaps) is one long table with one header.
        FigureView heatmaps(m_state, FigureKind::Heatmaps);
        rows = heatmaps.dataCsv().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.count(rows.first()), 1);
        QCOMPARE(rows.size(), 1 + 2 * 4 * 6);
        QCOMPARE(rows.filter(QRegularExpression(",nanogpt-d4,weighted_alpha$")).size(), 4 * 6);
    }

    void windowExportsEveryFigure()
    {
        QStandardPaths::setTestModeEnabled(true);
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        window.state()->requestSpectrum({0, 1500, {{}, 0, MatrixType::Q, {}}});
        QString error;
        const QStringList written = window.exportAllFigures(m_dir.path(), "pdf", FigureSize::fromPixels(1000, 600), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // Every tab's but the heads' (not analysed with --heads: nothing to draw).
        QCOMPARE(written.size(), window.tabs()->count() - 1);
        for (const QString &file : written)
            QVERIFY(QFileInfo(file).size() > 1000);
        QVERIFY(written[2].endsWith("nanogpt-d4-heatmaps.pdf"));
        QVERIFY(!written.filter("nanogpt-d4-plan.pdf").isEmpty()); // the Rank plan tab's too, named as --figure plan

        // A comparison's files are named after both runs; a paper preset is honoured (no titles).
        window.state()->addComparedRun(test::demoRun(), "again");
        QTemporaryDir compared;
        const QStringList both = window.exportAllFigures(compared.path(), "svg", *FigureSize::preset("two-column"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!both.isEmpty() && both[1].endsWith("nanogpt-d4-vs-again-bars.svg"));
        const SvgContent svg = readSvg(both[1]);
        QVERIFY2(!svg.allText().contains("by layer at"), qPrintable(svg.allText().left(300)));
    }

    // Every figure at every paper preset: no text runs off the figure, and no two texts overlap
    // (titles, axis and tick labels, legends, colour bars, cell values), with one run and with two.
    // What a figure's panels cannot draw is refused with the reason, never written as an empty
    // figure: a spectrum no matrix was chosen for, more heatmap colour ranges than heatmaps.
    void figuresRefuseWhatTheyCannotDraw()
    {
        FigureView spectrum(m_state, FigureKind::Spectrum);
        QString error;
        QVERIFY(!spectrum.exportTo(m_dir.filePath("none.png"), FigureSize::fromPixels(600, 400), &error));
        QCOMPARE(error, QStringLiteral("no matrix is chosen for the spectrum"));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("none.png")));

        FigureView heatmaps(m_state, FigureKind::Heatmaps);
        FigureOptions options;
        options.colourRanges = {HeatmapColourRange{}, HeatmapColourRange{}, HeatmapColourRange{}};
        QCOMPARE(heatmaps.configure(*m_state, options), QStringLiteral("--vmin/--vmax give 3 panels' ends; the heatmaps have 2"));
        options.colourRanges.removeLast();
        QCOMPARE(heatmaps.configure(*m_state, options), QString());
    }

    // A panel's "Export this view…" is its figure's export, in every figure (the Rank plan's
    // panels' asked nothing of anyone before the plan was a figure like the others).
    void everyPanelsExportIsItsFigures()
    {
        for (FigureKind kind : allFigures()) {
            FigureView view(m_state, kind);
            QSignalSpy asked(&view, &FigureView::exportRequested);
            qsizetype panels = 0;
            for (const QList<ChartView *> &row : view.panels())
                for (ChartView *panel : row) {
                    emit panel->exportRequested();
                    ++panels;
                }
            QVERIFY2(panels > 0, kind.info().id);
            QCOMPARE(asked.size(), panels);
        }
    }

    void presetsLayTextOutCleanly_data()
    {
        QTest::addColumn<QString>("figure");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("compare");
        QTest::addColumn<QString>("legend");
        // Every figure of the catalog (a new one too); comparisons at two columns and on slides, a
        // single column holds one run's figure.
        for (FigureKind kind : allFigures())
            for (const QString &preset : FigureSize::presetNames())
                for (bool compare : {false, true})
                    if (!compare || preset != QLatin1String("column"))
                        QTest::newRow(qPrintable(QStringLiteral("%1 %2%3").arg(QLatin1String(kind.info().id), preset, compare ? " two runs" : "")))
                        << QString::fromLatin1(kind.info().id) << preset << compare << QStringLiteral("auto");
        // Every other legend position of the views with a legend, at the smallest size and with two runs.
        for (const char *figure : {"lines", "bars"})
            for (const QString &legend : legendPositionNames())
                if (legend != QLatin1String("auto"))
                    for (const char *preset : {"column", "two-column"})
                        QTest::newRow(qPrintable(QStringLiteral("%1 %2 legend %3").arg(figure, preset, legend)))
                            << figure << preset << (QLatin1String(preset) != QLatin1String("column")) << legend;
    }
    void presetsLayTextOutCleanly()
    {
        QFETCH(QString, figure);
        QFETCH(QString, preset);
        QFETCH(bool, compare);
        QFETCH(QString, legend);
        if (compare)
            m_state->addComparedRun(test::demoRun(), QStringLiteral("nanogpt-d4 again"));
        m_state->setLegendPosition(*parseLegendPosition(legend));
        FigureView view(m_state, *figureOfName(figure));
        // What export would be asked for each: one matrix (layer 2's MLP↑), half the parameters.
        FigureOptions options;
        options.layer = 2;
        options.type = QStringLiteral("MLP_UP");
        options.rankTarget = RankTarget{RankTarget::Kind::Keep, 0.5};
        if (const QString refused = view.configure(*m_state, options); !refused.isEmpty())
            QSKIP(qPrintable(figure + ": " + refused)); // the demo has no per-head spectra, no training logs
        const QString path = m_dir.filePath(QStringLiteral("%1-%2-%3-%4.svg").arg(figure, preset).arg(compare).arg(legend));
        QString error;
        QVERIFY2(view.exportTo(path, *FigureSize::preset(preset), &error), qPrintable(error));
        QSizeF size;
        const QList<PlacedText> texts = placedTexts(path, &size);
        QVERIFY(texts.size() > 5);
        if (compare) { // a panel per run side by side: each title names its run, on two lines if need be
            // (lines+bars' lines draw both runs, told apart by their dashes: their title may drop the names)
            const FigureSize paper = *FigureSize::preset(preset);
            const FigureExporter::PaperFigure laidOut = FigureExporter::layOut(view.panels(paper.layoutSize()), paper);
            for (const auto &row : laidOut.panels)
                for (const auto &panel : row)
                    if (row.size() > 1 && qobject_cast<const RunStepView *>(panel.get()))
                        QVERIFY2(panel->titleRun().isEmpty() || panel->titleNamesRun(), qPrintable(panel->titleRun()));
        }
        if (figure == QLatin1String("lines") || figure == QLatin1String("bars")) { // "Q" is a legend entry only
            const bool legendShown = std::any_of(texts.begin(), texts.end(), [](const PlacedText &t) { return t.text == QLatin1String("Q"); });
            QCOMPARE(legendShown, legend != QLatin1String("none"));
        }
        const QRectF figureRect = QRectF(QPointF(0, 0), size).adjusted(-0.5, -0.5, 0.5, 0.5);
        for (const PlacedText &t : texts)
            QVERIFY2(figureRect.contains(t.box), qPrintable(QStringLiteral("'%1' at %2,%3 %4×%5 runs off the %6×%7 figure")
                                                                 .arg(t.text).arg(t.box.x()).arg(t.box.y()).arg(t.box.width())
                                                                 .arg(t.box.height()).arg(size.width()).arg(size.height())));
        for (qsizetype i = 0; i < texts.size(); ++i)
            for (qsizetype j = i + 1; j < texts.size(); ++j) {
                // Runs of one line touch (Qt writes a run per script), so boxes must overlap by more than a pixel.
                const QRectF overlap = texts[i].box.adjusted(1, 1, -1, -1).intersected(texts[j].box.adjusted(1, 1, -1, -1));
                QVERIFY2(overlap.isEmpty(), qPrintable(QStringLiteral("'%1' and '%2' overlap").arg(texts[i].text, texts[j].text)));
            }
    }

    // The window's export and `rankscope export` build the same figure from the same state: the
    // same texts (titles, labels, legends, cell values) in the same order, for one run and two.
    void windowAndCommandExportTheSameFigure_data()
    {
        QTest::addColumn<QString>("figure");
        QTest::addColumn<bool>("compare");
        for (const char *figure : {"lines", "bars", "heatmaps"}) {
            QTest::newRow(figure) << figure << false;
            QTest::newRow(qPrintable(QStringLiteral("%1, two runs").arg(figure))) << figure << true;
        }
    }
    void windowAndCommandExportTheSameFigure()
    {
        QFETCH(QString, figure);
        QFETCH(bool, compare);
        QStandardPaths::setTestModeEnabled(true);
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        if (compare) {
            window.addComparedRun(RANKSCOPE_DEMO_RUN);
            QTRY_COMPARE_WITH_TIMEOUT(window.state()->runCount(), 2, 30000);
            window.state()->renameRun(1, QStringLiteral("nanogpt-d4"));
        }
        const FigureKind kind = *figureOfName(figure);
        window.figure(kind)->setMetrics({Metric::StableRank, Metric::Alpha});
        window.state()->setTypeVisible(MatrixType::K, false);
        window.state()->setLayerRange({1, 2});
        window.state()->setCurrentStep(600);
        window.state()->setLegendPosition(LegendPosition::TopLeft);
        const QString fromWindow = m_dir.filePath("window-" + figure + ".svg"), fromCommand = m_dir.filePath("command-" + figure + ".svg");
        QString error;
        QVERIFY2(window.exportFigure(window.tabs()->indexOf(window.figure(kind)), fromWindow, *FigureSize::preset("two-column"), &error), qPrintable(error));
        QStringList arguments{"export", RANKSCOPE_DEMO_RUN};
        if (compare)
            arguments << RANKSCOPE_DEMO_RUN;
        arguments << "--figure" << figure << "--out" << fromCommand << "--types" << "Q,V,O,MLP_UP,MLP_DOWN" << "--layers" << "1-2"
                  << "--step" << "600" << "--preset" << "two-column" << "--legend" << "top-left";
        if (kind != FigureKind::Heatmaps)
            arguments << "--metric" << "stable_rank";
        else
            window.figure(kind)->setMetrics({Metric::CompressionPct, Metric::WeightedAlpha}); // the command's default pair
        if (kind == FigureKind::Heatmaps)
            QVERIFY2(window.exportFigure(window.tabs()->indexOf(window.figure(kind)), fromWindow, *FigureSize::preset("two-column"), &error), qPrintable(error));
        QCOMPARE(runExportCommand(arguments), 0);
        const SvgContent a = readSvg(fromWindow), b = readSvg(fromCommand);
        QVERIFY(a.wellFormed && b.wellFormed);
        QVERIFY(a.texts.size() > 10);
        QCOMPARE(a.texts, b.texts);
    }
};

RANKSCOPE_TEST_MAIN(TestFigureExport)
} // namespace tst_figureexport

#include "tst_FigureExport.moc"
