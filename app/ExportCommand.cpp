#include "ExportCommand.h"

#include "FigureExporter.h"
#include "LayerBarChart.h"
#include "MetricLineChart.h"
#include "RunLoader.h"
#include "SpectrumView.h"
#include "TypeLayerHeatmap.h"
#include "ViewState.h"
#include "io/OutputFile.h"
#include "io/PrintableText.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextStream>
#include <memory>

namespace rankscope {

namespace {

std::optional<LayerRange> parseLayers(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^\s*(\d+)\s*(?:-\s*(\d+))?\s*$)"));
    const auto m = pattern.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const int first = m.captured(1).toInt();
    const int last = m.captured(2).isEmpty() ? first : m.captured(2).toInt();
    return LayerRange{std::min(first, last), std::max(first, last)};
}

} // namespace

int runExportCommand(const QStringList &arguments)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Render one of RankScope's figures to PNG, SVG or PDF, headless.\n"
        "Figures: lines (metric vs step per type), bars (metric per layer at one step), heatmaps (type x layer;\n"
        "compression % and weighted alpha side by side unless --metric names one), spectrum (one matrix: --layer, --type)."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("SOURCE"), QStringLiteral("A checkpoint folder (analysed first if needed) or a results file; several to compare runs."), QStringLiteral("SOURCE…"));
    const QCommandLineOption figure(QStringLiteral("figure"), QStringLiteral("lines, bars, heatmaps or spectrum."), QStringLiteral("NAME"));
    const QCommandLineOption output(QStringLiteral("out"), QStringLiteral("The file to write: .png, .svg or .pdf."), QStringLiteral("FILE"));
    const QCommandLineOption metricOption(QStringLiteral("metric"), QStringLiteral("The metric's column name, e.g. stable_rank, compression_pct, weighted_alpha."), QStringLiteral("M"));
    const QCommandLineOption stepOption(QStringLiteral("step"), QStringLiteral("The step for bars, heatmaps and spectrum (default: last)."), QStringLiteral("S"), QStringLiteral("last"));
    const QCommandLineOption typesOption(QStringLiteral("types"), QStringLiteral("The matrix types to show, e.g. Q,K,MLP_UP (default: all)."), QStringLiteral("LIST"));
    const QCommandLineOption layersOption(QStringLiteral("layers"), QStringLiteral("The layer range, e.g. 0-7 (default: all)."), QStringLiteral("A-B"));
    const QCommandLineOption energyOption(QStringLiteral("energy"), QStringLiteral("Energy τ for compression % (default 0.90)."), QStringLiteral("τ"), QStringLiteral("0.90"));
    const QCommandLineOption widthOption(QStringLiteral("width"), QStringLiteral("Figure width in pixels (points in a PDF), default 1200."), QStringLiteral("W"), QStringLiteral("1200"));
    const QCommandLineOption heightOption(QStringLiteral("height"), QStringLiteral("Figure height, default 750."), QStringLiteral("H"), QStringLiteral("750"));
    const QCommandLineOption scaleOption(QStringLiteral("scale"), QStringLiteral("PNG scale factor, e.g. 2 for print (default 1)."), QStringLiteral("F"), QStringLiteral("1"));
    const QCommandLineOption titleOption(QStringLiteral("title"), QStringLiteral("A title instead of the generated one."), QStringLiteral("T"));
    const QCommandLineOption layerOption(QStringLiteral("layer"), QStringLiteral("spectrum: the layer."), QStringLiteral("L"));
    const QCommandLineOption typeOption(QStringLiteral("type"), QStringLiteral("spectrum: the matrix type."), QStringLiteral("T"));
    const QCommandLineOption relativeDepthOption(QStringLiteral("relative-depth"), QStringLiteral("Layers as layer / (depth − 1), to compare models of different depth."));
    const QCommandLineOption relativeStepOption(QStringLiteral("relative-step"), QStringLiteral("Steps as a fraction of each run's last step."));
    const QCommandLineOption byLayerOption(QStringLiteral("by-layer"), QStringLiteral("lines: one line per layer of this type instead of one per type."), QStringLiteral("T"));
    parser.addOptions({figure, output, metricOption, stepOption, typesOption, layersOption, energyOption, widthOption,
                       heightOption, scaleOption, titleOption, layerOption, typeOption, byLayerOption, relativeDepthOption, relativeStepOption});
    auto usage = [&](const QString &message) {
        err << "rankscope export: " << message << '\n';
        return 1;
    };
    if (!parser.parse(QStringList{QStringLiteral("rankscope export")} + arguments.mid(1)))
        return usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out << parser.helpText();
        return 0;
    }
    if (parser.positionalArguments().isEmpty())
        return usage(QStringLiteral("give a SOURCE"));
    const QString name = parser.value(figure);
    if (!QStringList{"lines", "bars", "heatmaps", "spectrum"}.contains(name))
        return usage(QStringLiteral("--figure is lines, bars, heatmaps or spectrum"));
    const QString path = parser.value(output);
    if (path.isEmpty() || !FigureExporter::formats().contains(QFileInfo(path).suffix().toLower()))
        return usage(QStringLiteral("--out needs a .png, .svg or .pdf file"));
    // Checked before any run is loaded or analysed.
    if (const QString problem = outputFileProblem(path); !problem.isEmpty())
        return usage(printableText(problem));
    std::optional<Metric> metric;
    if (parser.isSet(metricOption) && !(metric = metricFromColumn(parser.value(metricOption))))
        return usage(QStringLiteral("unknown --metric '%1'").arg(parser.value(metricOption)));
    bool ok = false;
    const double energy = parser.value(energyOption).toDouble(&ok);
    if (!ok || !(energy > 0 && energy <= 1))
        return usage(QStringLiteral("--energy must be a number in (0, 1]"));
    ExportSize size;
    size.width = parser.value(widthOption).toInt();
    size.height = parser.value(heightOption).toInt();
    size.scale = parser.value(scaleOption).toDouble();

    RunLoadOptions options;
    options.settings.energy = energy;
    options.quiet = true;
    ViewState state;
    state.setEnergy(energy);
    bool anyIssue = false;
    const QStringList sources = parser.positionalArguments();
    for (qsizetype i = 0; i < sources.size(); ++i) {
        const std::optional<RunAnalysis> run = loadRun(sources[i], options, err);
        if (run)
            for (const AnalysisIssue &issue : run->issues)
                err << issue.text() << '\n';
        if (!run || run->results.isEmpty()) {
            err << printableText(sources[i]) << ": nothing to draw\n";
            return 1;
        }
        anyIssue |= !run->issues.isEmpty();
        const QFileInfo info(sources[i]);
        const QString name = info.isDir() ? info.fileName() : info.completeBaseName();
        if (i == 0)
            state.setRun(*run, name);
        else
            state.addComparedRun(*run, name);
    }
    state.setRelativeDepth(parser.isSet(relativeDepthOption));
    state.setRelativeStep(parser.isSet(relativeStepOption));
    if (parser.isSet(typesOption)) {
        QSet<MatrixType> wanted;
        for (const QString &t : parser.value(typesOption).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const auto type = matrixTypeFromCsvName(t.trimmed());
            if (!type)
                return usage(QStringLiteral("unknown type '%1' in --types").arg(t));
            wanted.insert(*type);
        }
        for (MatrixType type : kAllMatrixTypes)
            state.setTypeVisible(type, wanted.contains(type));
    }
    if (parser.isSet(layersOption)) {
        const auto range = parseLayers(parser.value(layersOption));
        if (!range)
            return usage(QStringLiteral("--layers takes A-B, e.g. 0-7"));
        state.setLayerRange(*range);
    }
    if (parser.value(stepOption) != QLatin1String("last")) {
        const qint64 step = parser.value(stepOption).toLongLong(&ok);
        if (!ok || !state.steps().contains(step))
            return usage(QStringLiteral("no checkpoint at step %1").arg(parser.value(stepOption)));
        state.setCurrentStep(step);
    }

    std::vector<std::unique_ptr<ChartView>> views;
    if (name == QLatin1String("lines")) {
        auto view = std::make_unique<MetricLineChart>(&state);
        view->setMetric(metric.value_or(Metric::StableRank));
        if (parser.isSet(byLayerOption)) {
            const auto type = matrixTypeFromCsvName(parser.value(byLayerOption));
            if (!type)
                return usage(QStringLiteral("unknown type '%1' in --by-layer").arg(parser.value(byLayerOption)));
            view->setPerLayerType(*type);
        }
        views.push_back(std::move(view));
    } else if (name == QLatin1String("bars")) {
        for (int run = 0; run < state.runCount(); ++run) { // one panel per run, on one scale
            auto view = std::make_unique<LayerBarChart>(&state);
            view->setMetric(metric.value_or(Metric::CompressionPct));
            view->setRunIndex(run);
            views.push_back(std::move(view));
        }
    } else if (name == QLatin1String("heatmaps")) {
        const QList<Metric> metrics = metric ? QList<Metric>{*metric} : QList<Metric>{Metric::CompressionPct, Metric::WeightedAlpha};
        for (Metric m : metrics)
            for (int run = 0; run < state.runCount(); ++run) {
                auto view = std::make_unique<TypeLayerHeatmap>(&state, m);
                view->setRunIndex(run);
                views.push_back(std::move(view));
            }
    } else {
        const auto type = matrixTypeFromCsvName(parser.value(typeOption));
        const int layer = parser.value(layerOption).toInt(&ok);
        if (!type || !ok)
            return usage(QStringLiteral("spectrum needs --layer L and --type T"));
        auto view = std::make_unique<SpectrumView>(&state);
        const MatrixKey key{state.currentStep(), layer, *type};
        if (!state.find(key))
            return usage(QStringLiteral("no %1 matrix in layer %2 at step %3").arg(csvName(*type)).arg(layer).arg(key.step));
        view->showMatrix(key);
        views.push_back(std::move(view));
    }
    QList<QCustomPlot *> panels;
    for (auto &view : views) {
        if (parser.isSet(titleOption))
            view->setTitleOverride(parser.value(titleOption));
        view->resize(size.width / int(views.size()), size.height);
        view->setExporting(true);
        panels.append(view->plot());
    }
    QString error;
    if (!FigureExporter::write(panels, path, size, &error)) {
        err << "rankscope export: " << printableText(error) << '\n';
        return 1;
    }
    err << "wrote " << printableText(path) << '\n';
    return anyIssue ? 2 : 0;
}

} // namespace rankscope
