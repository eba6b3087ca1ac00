#include "ExportCommand.h"

#include "CommandOptions.h"
#include "FigureExporter.h"
#include "FigureView.h"
#include "MetricLineChart.h"
#include "analysis/RunLoader.h"
#include "SpectrumView.h"
#include "figures/ViewState.h"
#include "io/OutputFile.h"
#include "io/PrintableText.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextStream>
#include <climits>

namespace rankscope {

namespace {

// The sides FigureSize::isValid draws, in layout pixels (96 dpi), and the resolution and font
// sizes it takes: each option is refused on its own when outside them, and the figure as a whole
// is checked by isValid still (at most 400 megapixels, a preset's sides).
constexpr qint64 kMinWidthPx = 120, kMinHeightPx = 90, kMaxSidePx = 20000;
constexpr double kMinDpi = 36, kMaxDpi = 2400, kMinFontPt = 4, kMaxFontPt = 48;

// "3" or "0-7": each number read whole (99999999999 was 0 once converted).
std::optional<LayerRange> parseLayers(const QString &text, QString *error)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^\s*(\d+)\s*(?:-\s*(\d+))?\s*$)"));
    const auto m = pattern.match(text);
    if (!m.hasMatch()) {
        *error = QStringLiteral("--layers takes A-B, e.g. 0-7");
        return std::nullopt;
    }
    const auto first = wholeOption(QStringLiteral("layers"), m.captured(1), 0, INT_MAX, error, QStringLiteral("layers"));
    const auto last = !first || m.captured(2).isEmpty() ? first : wholeOption(QStringLiteral("layers"), m.captured(2), 0, INT_MAX, error, QStringLiteral("layers"));
    if (!first || !last)
        return std::nullopt;
    return LayerRange{int(std::min(*first, *last)), int(std::max(*first, *last))};
}

} // namespace

int runExportCommand(const QStringList &arguments)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Render one of RankScope's figures to PNG, SVG or PDF, headless.\n"
        "Figures: lines (metric vs step per type), bars (metric per layer at one step), heatmaps (type x layer;\n"
        "compression % and weighted alpha side by side unless --metric names one), spectrum (one matrix: --layer, --type).\n"
        "Sizes on paper: --preset column|two-column|slide, or --size 3.3x2.4in with --dpi and --font-size."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("SOURCE"), QStringLiteral("A checkpoint folder (analysed first if needed) or a results file; several to compare runs."), QStringLiteral("SOURCE…"));
    const QCommandLineOption figure(QStringLiteral("figure"), QStringLiteral("lines, bars, heatmaps or spectrum."), QStringLiteral("NAME"));
    const QCommandLineOption output(QStringLiteral("out"), QStringLiteral("The file to write: .png, .svg or .pdf."), QStringLiteral("FILE"));
    const QCommandLineOption metricOption(QStringLiteral("metric"), QStringLiteral("The metric's column name, e.g. stable_rank, compression_pct, weighted_alpha."), QStringLiteral("M"));
    const QCommandLineOption stepOption(QStringLiteral("step"), QStringLiteral("The step for bars, heatmaps and spectrum (default: last)."), QStringLiteral("S"), QStringLiteral("last"));
    const QCommandLineOption typesOption(QStringLiteral("types"), QStringLiteral("The matrix types to show, e.g. Q,K,MLP_UP (default: all)."), QStringLiteral("LIST"));
    const QCommandLineOption layersOption(QStringLiteral("layers"), QStringLiteral("The layer range, e.g. 0-7 (default: all)."), QStringLiteral("A-B"));
    const QCommandLineOption energyOption(QStringLiteral("energy"), QStringLiteral("Energy τ for compression % (default 0.90)."), QStringLiteral("τ"), QStringLiteral("0.90"));
    const QCommandLineOption presetOption(QStringLiteral("preset"), QStringLiteral("column (3.3 x 2.4 in, 8 pt, 300 dpi), two-column (7 x 3.5 in, 9 pt, 300 dpi) or slide (13.33 x 7.5 in, 16 pt, 150 dpi)."), QStringLiteral("NAME"));
    const QCommandLineOption sizeOption(QStringLiteral("size"), QStringLiteral("Figure size with a unit: 3.3x2.4in, 8.5x6cm, 90x60mm, 600x400pt or 1200x750px."), QStringLiteral("WxH"));
    const QCommandLineOption dpiOption(QStringLiteral("dpi"), QStringLiteral("PNG resolution in dots per inch (default 96, presets 300)."), QStringLiteral("N"));
    const QCommandLineOption fontOption(QStringLiteral("font-size"), QStringLiteral("Tick label size in points; axis labels 1 pt and titles 2 pt larger (default 9)."), QStringLiteral("PT"));
    const QCommandLineOption widthOption(QStringLiteral("width"), QStringLiteral("Figure width in pixels at 96 dpi, default 1200 (or use --size)."), QStringLiteral("W"));
    const QCommandLineOption heightOption(QStringLiteral("height"), QStringLiteral("Figure height in pixels at 96 dpi, default 750."), QStringLiteral("H"));
    const QCommandLineOption scaleOption(QStringLiteral("scale"), QStringLiteral("PNG pixels per layout pixel, e.g. 2 (or use --dpi)."), QStringLiteral("F"));
    const QCommandLineOption titleOption(QStringLiteral("title"), QStringLiteral("A title instead of the generated one."), QStringLiteral("T"));
    const QCommandLineOption layerOption(QStringLiteral("layer"), QStringLiteral("spectrum: the layer."), QStringLiteral("L"));
    const QCommandLineOption typeOption(QStringLiteral("type"), QStringLiteral("spectrum: the matrix type."), QStringLiteral("T"));
    const QCommandLineOption relativeDepthOption(QStringLiteral("relative-depth"), QStringLiteral("Layers as layer / (depth − 1), to compare models of different depth."));
    const QCommandLineOption relativeStepOption(QStringLiteral("relative-step"), QStringLiteral("Steps as a fraction of each run's last step."));
    const QCommandLineOption noGuideOption(QStringLiteral("no-guide-band"), QStringLiteral("lines of alpha: leave out WeightWatcher's 2 <= alpha <= 6 band."));
    const QCommandLineOption byLayerOption(QStringLiteral("by-layer"), QStringLiteral("lines: one line per layer of this type instead of one per type."), QStringLiteral("T"));
    const QCommandLineOption blockOption(QStringLiteral("block"), QStringLiteral("lines, bars, spectrum: the block of a model of several stacks, e.g. encoder, decoder-cross (default: the first)."), QStringLiteral("B"));
    const QCommandLineOption legendOption(QStringLiteral("legend"), QStringLiteral("lines, bars: where the legend goes: %1 (default auto: beside the plot, or below it when narrow).").arg(legendPositionNames().join(QLatin1String(", "))), QStringLiteral("WHERE"), QStringLiteral("auto"));
    const QCommandLineOption themeOption(QStringLiteral("theme"), QStringLiteral("light (default, for paper) or dark (for slides on a dark background)."), QStringLiteral("NAME"), QStringLiteral("light"));
    const QCommandLineOption expertOption(QStringLiteral("expert"), QStringLiteral("MoE models: one expert (a number or 'shared') instead of the mean over the routed experts."), QStringLiteral("E"));
    parser.addOptions({figure, output, metricOption, stepOption, typesOption, layersOption, energyOption, presetOption, sizeOption,
                       dpiOption, fontOption, widthOption, heightOption, scaleOption, titleOption, layerOption, typeOption, byLayerOption, noGuideOption, relativeDepthOption, relativeStepOption,
                       blockOption, expertOption, legendOption, themeOption});
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
    const std::optional<FigureKind> kind = FigureView::kindFromName(parser.value(figure));
    if (!kind)
        return usage(QStringLiteral("--figure is lines, bars, heatmaps or spectrum"));
    const QString path = parser.value(output);
    if (path.isEmpty() || !FigureExporter::formats().contains(QFileInfo(path).suffix().toLower()))
        return usage(QStringLiteral("--out needs a .png, .svg or .pdf file"));
    // Checked before any run is loaded or analysed: where it goes, and that nothing read is lost there.
    if (const QString problem = outputFileProblem(path); !problem.isEmpty())
        return usage(printableText(problem));
    if (const QString problem = replacedInputProblem({QStringLiteral("out"), path}); !problem.isEmpty())
        return usage(printableText(problem));
    std::optional<Metric> metric;
    if (parser.isSet(metricOption) && !(metric = metricFromColumn(parser.value(metricOption))))
        return usage(QStringLiteral("unknown --metric '%1'").arg(parser.value(metricOption)));
    // Every number read whole and checked as read (CommandOptions), before any run is loaded.
    QString optionError;
    const std::optional<double> energy = numberOption(QStringLiteral("energy"), parser.value(energyOption), 0, 1, &optionError, QStringLiteral("a number"), true);
    if (!energy)
        return usage(optionError);
    std::optional<LayerRange> layers;
    if (parser.isSet(layersOption) && !(layers = parseLayers(parser.value(layersOption), &optionError)))
        return usage(optionError);
    std::optional<qint64> layer, step;
    if (parser.isSet(layerOption) && !(layer = wholeOption(QStringLiteral("layer"), parser.value(layerOption), 0, INT_MAX, &optionError)))
        return usage(optionError);
    if (parser.value(stepOption) != QLatin1String("last") &&
        !(step = wholeOption(QStringLiteral("step"), parser.value(stepOption), 0, std::numeric_limits<qint64>::max(), &optionError, QStringLiteral("last or a whole number"))))
        return usage(optionError);
    // The size: a preset, then --size or --width/--height, then --dpi or --scale and --font-size.
    FigureSize size;
    if (parser.isSet(presetOption)) {
        const auto preset = FigureSize::preset(parser.value(presetOption));
        if (!preset)
            return usage(QStringLiteral("--preset is %1").arg(FigureSize::presetNames().join(QLatin1String(", "))));
        size = *preset;
    }
    if (parser.isSet(sizeOption)) {
        QString problem;
        const auto wh = FigureSize::parseSize(parser.value(sizeOption), &problem);
        if (!wh)
            return usage(QStringLiteral("--size: %1").arg(problem));
        // FigureSize::isValid compares whole pixels: a side past an int's (4294968296 px) wrapped to
        // a small one (1000 px) and passed. The sides are checked as the numbers they are first.
        const double widthPx = wh->first / 72 * FigureSize::kLayoutDpi, heightPx = wh->second / 72 * FigureSize::kLayoutDpi;
        if (!(widthPx <= kMaxSidePx && heightPx <= kMaxSidePx))
            return usage(QStringLiteral("--size takes a width and a height of at most %1 px (%2 in) each, not '%3'")
                             .arg(kMaxSidePx).arg(kMaxSidePx / FigureSize::kLayoutDpi, 0, 'f', 2).arg(printableText(parser.value(sizeOption))));
        std::tie(size.widthPt, size.heightPt) = *wh;
    }
    if (parser.isSet(widthOption) || parser.isSet(heightOption)) {
        std::optional<qint64> w, h;
        if (parser.isSet(widthOption) &&
            !(w = wholeOption(QStringLiteral("width"), parser.value(widthOption), kMinWidthPx, kMaxSidePx, &optionError, QStringLiteral("a whole number of pixels"))))
            return usage(optionError);
        if (parser.isSet(heightOption) &&
            !(h = wholeOption(QStringLiteral("height"), parser.value(heightOption), kMinHeightPx, kMaxSidePx, &optionError, QStringLiteral("a whole number of pixels"))))
            return usage(optionError);
        const FigureSize pixels = FigureSize::fromPixels(w ? int(*w) : size.layoutSize().width(), h ? int(*h) : size.layoutSize().height());
        size.widthPt = pixels.widthPt;
        size.heightPt = pixels.heightPt;
    }
    if (parser.isSet(scaleOption)) {
        const auto scale = numberOption(QStringLiteral("scale"), parser.value(scaleOption), kMinDpi / FigureSize::kLayoutDpi, kMaxDpi / FigureSize::kLayoutDpi, &optionError);
        if (!scale)
            return usage(optionError);
        size.dpi = FigureSize::kLayoutDpi * *scale;
    }
    if (parser.isSet(dpiOption)) {
        const auto dpi = numberOption(QStringLiteral("dpi"), parser.value(dpiOption), kMinDpi, kMaxDpi, &optionError, QStringLiteral("dots per inch"));
        if (!dpi)
            return usage(optionError);
        size.dpi = *dpi;
    }
    if (parser.isSet(fontOption)) {
        const auto font = numberOption(QStringLiteral("font-size"), parser.value(fontOption), kMinFontPt, kMaxFontPt, &optionError, QStringLiteral("points"));
        if (!font)
            return usage(optionError);
        size.fontPt = *font;
    }
    QString sizeProblem;
    if (!size.isValid(&sizeProblem))
        return usage(sizeProblem);
    const QString theme = parser.value(themeOption).toLower();
    if (theme != QLatin1String("light") && theme != QLatin1String("dark"))
        return usage(QStringLiteral("--theme is light or dark"));
    size.dark = theme == QLatin1String("dark");
    const std::optional<LegendPosition> legend = parseLegendPosition(parser.value(legendOption));
    if (!legend)
        return usage(QStringLiteral("--legend is %1").arg(legendPositionNames().join(QLatin1String(", "))));

    RunLoadOptions options;
    options.settings.energy = *energy;
    ViewState state;
    state.setEnergy(*energy);
    bool anyIssue = false;
    const QStringList sources = parser.positionalArguments();
    for (qsizetype i = 0; i < sources.size(); ++i) {
        const LoadedRun loaded = loadRun(sources[i], options);
        for (const QString &message : loaded.messages)
            err << message << '\n';
        const std::optional<RunAnalysis> &run = loaded.run;
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
    if (parser.isSet(blockOption)) {
        if (!state.blocks().contains(parser.value(blockOption)))
            return usage(QStringLiteral("no block '%1' (the runs have: %2)").arg(parser.value(blockOption), state.blocks().join(QLatin1String(", "))));
        state.setBlock(parser.value(blockOption));
    }
    if (parser.isSet(expertOption)) {
        if (!state.experts().contains(parser.value(expertOption)))
            return usage(QStringLiteral("no expert '%1'").arg(parser.value(expertOption)));
        state.setExpert(parser.value(expertOption));
    }
    state.setRelativeDepth(parser.isSet(relativeDepthOption));
    state.setLegendPosition(*legend);
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
    if (layers)
        state.setLayerRange(*layers);
    if (step) {
        if (!state.steps().contains(*step))
            return usage(QStringLiteral("no checkpoint at step %1").arg(*step));
        state.setCurrentStep(*step);
    }

    FigureView view(&state, *kind);
    switch (*kind) {
    case FigureKind::Lines:
        if (metric)
            view.setMetrics({*metric});
        view.lineChart()->setAlphaGuide(!parser.isSet(noGuideOption));
        if (parser.isSet(byLayerOption)) {
            const auto type = matrixTypeFromCsvName(parser.value(byLayerOption));
            if (!type)
                return usage(QStringLiteral("unknown type '%1' in --by-layer").arg(parser.value(byLayerOption)));
            view.lineChart()->setPerLayerType(*type);
        }
        break;
    case FigureKind::Bars:
    case FigureKind::Heatmaps:
        if (metric)
            view.setMetrics({*metric});
        break;
    case FigureKind::Spectrum: {
        const auto type = matrixTypeFromCsvName(parser.value(typeOption));
        if (!type || !layer)
            return usage(QStringLiteral("spectrum needs --layer L and --type T"));
        const MatrixKey key{0, state.currentStep(), {state.block(), int(*layer), *type, state.expert()}};
        if (!state.find(key))
            return usage(QStringLiteral("no %1 matrix at step %2").arg(key.id.text()).arg(key.step));
        view.spectrumView()->showMatrix(key);
        break;
    }
    }
    if (parser.isSet(titleOption))
        view.setTitleOverride(parser.value(titleOption));
    QString error;
    if (!view.exportTo(path, size, &error)) {
        err << "rankscope export: " << printableText(error) << '\n';
        return 1;
    }
    err << "wrote " << printableText(path) << '\n';
    return anyIssue ? 2 : 0;
}

} // namespace rankscope
