#include "ExportCommand.h"

#include "CommandOptions.h"
#include "FigureExporter.h"
#include "FigureView.h"
#include "RankTargetOptions.h"
#include "analysis/execution/BaseModelRuns.h"
#include "analysis/execution/RunLoader.h"
#include "analysis/results/RunSummary.h"
#include "base/PrintableText.h"
#include "figures/ViewState.h"
#include "io/OutputFile.h"
#include "io/logs/TrainingLogs.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextStream>
#include <climits>
#include <utility>

namespace rankscope {

namespace {

// The sides FigureSize::isValid draws, in layout pixels (96 dpi), and the resolution and font
// sizes it takes: each option is refused on its own when outside them, and the figure as a whole
// is checked by isValid still (at most 400 megapixels, a preset's sides).
constexpr qint64 kMinWidthPx = 120, kMinHeightPx = 90, kMaxSidePx = 20000;
constexpr double kMinDpi = 36, kMaxDpi = 2400, kMinFontPt = 4, kMaxFontPt = 48;

// "3" or "0-7" for --NAME: each number read whole (99999999999 was 0 once converted), up to `most`.
std::optional<std::pair<qint64, qint64>> parseRange(const QString &name, const QString &text, qint64 most, const QString &example, QString *error)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^\s*(\d+)\s*(?:-\s*(\d+))?\s*$)"));
    const auto m = pattern.match(text);
    if (!m.hasMatch()) {
        *error = QStringLiteral("--%1 takes A-B, e.g. %2").arg(name, example);
        return std::nullopt;
    }
    const auto first = wholeOption(name, m.captured(1), 0, most, error, name);
    const auto last = !first || m.captured(2).isEmpty() ? first : wholeOption(name, m.captured(2), 0, most, error, name);
    if (!first || !last)
        return std::nullopt;
    return std::pair{std::min(*first, *last), std::max(*first, *last)};
}

std::optional<LayerRange> parseLayers(const QString &name, const QString &text, QString *error)
{
    const auto range = parseRange(name, text, INT_MAX, QStringLiteral("0-7"), error);
    return range ? std::optional(LayerRange{int(range->first), int(range->second)}) : std::nullopt;
}

// export's own options; --energy is every command's (CommandParser).
struct ExportOptionSet {
    const QCommandLineOption figure{QStringLiteral("figure"), QStringLiteral("%1: the figure (above).").arg(figureNames()), QStringLiteral("NAME")};
    const QCommandLineOption output{QStringLiteral("out"), QStringLiteral("The file to write: .png, .svg or .pdf; .csv writes the numbers behind the figure."), QStringLiteral("FILE")};
    const QCommandLineOption metric{QStringLiteral("metric"), QStringLiteral("The metric's column name, e.g. stable_rank, compression_pct, weighted_alpha."), QStringLiteral("M")};
    const QCommandLineOption step{QStringLiteral("step"), QStringLiteral("The step for bars, heatmaps and spectrum (default: last)."), QStringLiteral("S"), QStringLiteral("last")};
    const QCommandLineOption types{QStringLiteral("types"), QStringLiteral("The matrix types to show, e.g. Q,K,MLP_UP (default: all)."), QStringLiteral("LIST")};
    const QCommandLineOption layers{QStringLiteral("layers"), QStringLiteral("The layer range, e.g. 0-7 (default: all)."), QStringLiteral("A-B")};
    const QCommandLineOption lineLayers{QStringLiteral("line-layers"), QStringLiteral("lines, lines+bars: the lines' own layer range, e.g. 0 (default: --layers)."), QStringLiteral("A-B")};
    const QCommandLineOption barLayers{QStringLiteral("bar-layers"), QStringLiteral("bars, lines+bars: the bars' own layer range (default: --layers)."), QStringLiteral("A-B")};
    const QCommandLineOption steps{QStringLiteral("steps"), QStringLiteral("lines, lines+bars: the training steps the lines show, e.g. 0-1000 (default: all)."), QStringLiteral("A-B")};
    const QCommandLineOption preset{QStringLiteral("preset"), QStringLiteral("column (3.3 x 2.4 in, 7 pt, 300 dpi), two-column (7 x 3.5 in, 8 pt, 300 dpi), both for under a paper's caption (no generated title: the axis labels say what it said; lines without markers), or slide (13.33 x 7.5 in, 16 pt, 150 dpi)."), QStringLiteral("NAME")};
    const QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Figure size with a unit: 3.3x2.4in, 8.5x6cm, 90x60mm, 600x400pt or 1200x750px."), QStringLiteral("WxH")};
    const QCommandLineOption dpi{QStringLiteral("dpi"), QStringLiteral("PNG resolution in dots per inch (default 96, presets 300)."), QStringLiteral("N")};
    const QCommandLineOption font{QStringLiteral("font-size"), QStringLiteral("Tick label size in points; axis labels 1 pt and titles 2 pt larger (default 9)."), QStringLiteral("PT")};
    const QCommandLineOption width{QStringLiteral("width"), QStringLiteral("Figure width in pixels at 96 dpi, default 1200 (or use --size)."), QStringLiteral("W")};
    const QCommandLineOption height{QStringLiteral("height"), QStringLiteral("Figure height in pixels at 96 dpi, default 750."), QStringLiteral("H")};
    const QCommandLineOption scale{QStringLiteral("scale"), QStringLiteral("PNG pixels per layout pixel, e.g. 2 (or use --dpi)."), QStringLiteral("F")};
    const QCommandLineOption title{QStringLiteral("title"), QStringLiteral("A title instead of the generated one (the column and two-column presets have none: a caption's); for a figure of several panels (heatmaps, compared runs) a title over them all, each panel keeping its own; --title '' for no title at all."), QStringLiteral("T")};
    const QCommandLineOption panelTitle{QStringLiteral("panel-title"), QStringLiteral("A panel's own title, given once per panel in order (heatmaps: compression %, then weighted alpha); an empty one keeps the generated title."), QStringLiteral("T")};
    const QCommandLineOption colourRange{QStringLiteral("colour-range"), QStringLiteral("heatmaps: what the colours span, step (default: each metric's own range at the step shown) or all-steps (one colour is one value at every step)."), QStringLiteral("WHAT"), QStringLiteral("step")};
    const QCommandLineOption vmin{QStringLiteral("vmin"), QStringLiteral("heatmaps: the value at the bottom of the colour bar: one number for every panel, or one per panel separated by commas (--vmin 0,1.5); an empty one leaves that panel's end fitted (--vmin ,1.5)."), QStringLiteral("V")};
    const QCommandLineOption vmax{QStringLiteral("vmax"), QStringLiteral("heatmaps: the value at the top of the colour bar, as --vmin (--vmax 100,6)."), QStringLiteral("V")};
    const QCommandLineOption layer{QStringLiteral("layer"), QStringLiteral("spectrum, spectrogram: the layer (spectrogram without it: the type's mean over --layers); heads: that layer's heads over the steps."), QStringLiteral("L")};
    const QCommandLineOption type{QStringLiteral("type"), QStringLiteral("spectrum, spectrogram: the matrix type; heads: Q, K, V, O, QK or OV (default QK)."), QStringLiteral("T")};
    const QCommandLineOption relativeDepth{QStringLiteral("relative-depth"), QStringLiteral("Layers as layer / (depth − 1), to compare models of different depth.")};
    const QCommandLineOption relativeStep{QStringLiteral("relative-step"), QStringLiteral("Steps as a fraction of each run's last step.")};
    const QCommandLineOption noGuide{QStringLiteral("no-guide-band"), QStringLiteral("lines of alpha: leave out WeightWatcher's 2 <= alpha <= 6 band.")};
    const QCommandLineOption alphaCi{QStringLiteral("alpha-ci"), QStringLiteral("lines of alpha: error bars of its 95% bootstrap interval (a folder's results gain it from the spectra if they lack it).")};
    const QCommandLineOption byLayer{QStringLiteral("by-layer"), QStringLiteral("lines: one line per layer of this type instead of one per type."), QStringLiteral("T")};
    const QCommandLineOption block{QStringLiteral("block"), QStringLiteral("lines, bars, spectrum, spectrogram: the block of a model of several stacks, e.g. encoder, decoder-cross (default: the first)."), QStringLiteral("B")};
    const QCommandLineOption legend{QStringLiteral("legend"), QStringLiteral("lines, bars: where the legend goes: %1 (default auto: in a row above the plot when it fits, else beside or below it).").arg(legendPositionNames().join(QLatin1String(", "))), QStringLiteral("WHERE"), QStringLiteral("auto")};
    const QCommandLineOption theme{QStringLiteral("theme"), QStringLiteral("light (default, for paper) or dark (for slides on a dark background)."), QStringLiteral("NAME"), QStringLiteral("light")};
    const QCommandLineOption spectrumTail{QStringLiteral("eigenvalues"), QStringLiteral("spectrum: the right panel, ccdf (default: the empirical CCDF with the fitted power law from x_min) or density (with the Marchenko-Pastur bulk)."), QStringLiteral("AS"), QStringLiteral("ccdf")};
    const QCommandLineOption keep = keepOption();
    const QCommandLineOption maxError = maxErrorOption();
    const QCommandLineOption head{QStringLiteral("head"), QStringLiteral("heads, with --layer: that head's spectrum (of --type; a K/V head for K and V)."), QStringLiteral("H")};
    const QCommandLineOption scalar{QStringLiteral("scalar"), QStringLiteral("lines, lines+curves: under the lines, on their step axis, TAG as the first run's training logged it (rankscope info lists the tags), smoothed as TensorBoard smooths it, the checkpoints marked."), QStringLiteral("TAG")};
    const QCommandLineOption expert{QStringLiteral("expert"), QStringLiteral("MoE models: one expert (a number or 'shared') instead of the mean over the routed experts."), QStringLiteral("E")};
    const QCommandLineOption base{QStringLiteral("base"), QStringLiteral("The first SOURCE is a LoRA adapter run: its merged weights W0 + dW and the base model's own W0 (read from PATH) are drawn as two more runs compared with it."), QStringLiteral("PATH")};
};

// The figure, where it goes (checked before any run is loaded or analysed: where it goes, and
// that nothing read is lost there) and the metric.
bool readFigure(const CommandParser &parser, const ExportOptionSet &o, ExportOptions &options, QString *error)
{
    const std::optional<FigureKind> kind = figureOfName(parser.value(o.figure));
    if (!kind) {
        *error = QStringLiteral("unknown --figure '%1'; one of: %2").arg(printableText(parser.value(o.figure)), figureNames());
        return false;
    }
    const FigureRow &figure = kind->info();
    if (figure.curves == FigureCurves::Required && !parser.isSet(o.scalar)) {
        *error = QStringLiteral("--figure %1 needs --scalar TAG, the curve to draw (rankscope info lists the tags)").arg(QLatin1String(figure.id));
        return false;
    }
    options.kind = *kind;
    options.out = parser.value(o.output);
    const QString suffix = QFileInfo(options.out).suffix().toLower();
    if (options.out.isEmpty() || (!FigureExporter::formats().contains(suffix) && suffix != QLatin1String("csv"))) {
        *error = QStringLiteral("--out needs a .png, .svg, .pdf or .csv file");
        return false;
    }
    QString problem = outputFileProblem(options.out);
    if (problem.isEmpty())
        problem = replacedInputProblem({QStringLiteral("out"), options.out});
    if (!problem.isEmpty()) {
        *error = printableText(problem);
        return false;
    }
    if (parser.isSet(o.metric) && !(options.metric = metricOption(QStringLiteral("metric"), parser.value(o.metric), error)))
        return false;
    if (figure.rankTarget) {
        const std::optional<RankTarget> target = readRankTarget(parser, error);
        if (!target)
            return false;
        options.rankTarget = *target;
    }
    return true;
}

// --vmin's or --vmax's values: one, or one per panel separated by commas, an empty one for none.
std::optional<QList<std::optional<double>>> colourEnds(const CommandParser &parser, const QCommandLineOption &option, QString *error)
{
    QList<std::optional<double>> ends;
    if (!parser.isSet(option))
        return ends;
    const QString name = option.names().first();
    for (const QString &part : parser.value(option).split(QLatin1Char(','))) {
        if (part.trimmed().isEmpty()) {
            ends << std::nullopt;
            continue;
        }
        const auto value = numberOption(name, part.trimmed(), -1e12, 1e12, error);
        if (!value)
            return std::nullopt;
        ends << *value;
    }
    return ends;
}

// The heatmaps' colour ranges: a fit for all, and the ends each panel's row sets by hand.
bool readColourRanges(const CommandParser &parser, const ExportOptionSet &o, ExportOptions &options, QString *error)
{
    const QString fit = parser.value(o.colourRange).toLower();
    if (fit != QLatin1String("all-steps") && fit != QLatin1String("step")) {
        *error = QStringLiteral("unknown --colour-range '%1'; one of: all-steps, step").arg(printableText(parser.value(o.colourRange)));
        return false;
    }
    const auto mins = colourEnds(parser, o.vmin, error);
    const auto maxs = mins ? colourEnds(parser, o.vmax, error) : std::nullopt;
    if (!mins || !maxs)
        return false;
    const qsizetype panels = std::max<qsizetype>({1, mins->size(), maxs->size()});
    for (qsizetype i = 0; i < panels; ++i) {
        HeatmapColourRange range;
        range.fit = fit == QLatin1String("step") ? HeatmapColourRange::Fit::ShownStep : HeatmapColourRange::Fit::AllSteps;
        range.min = mins->size() == 1 ? mins->first() : mins->value(i);
        range.max = maxs->size() == 1 ? maxs->first() : maxs->value(i);
        if (range.min && range.max && !(*range.min < *range.max)) {
            *error = QStringLiteral("--vmin must be below --vmax (panel %1: %2 and %3)").arg(i + 1).arg(*range.min).arg(*range.max);
            return false;
        }
        options.colourRanges << range;
    }
    return true;
}

// Every number read whole and checked as read (CommandOptions), before any run is loaded.
bool readNumbers(const CommandParser &parser, const ExportOptionSet &o, ExportOptions &options, QString *error)
{
    const std::optional<double> energy = parser.energy(error);
    if (!energy)
        return false;
    options.energy = *energy;
    for (const auto &[option, range] : {std::pair{&o.layers, &options.layers}, std::pair{&o.lineLayers, &options.lineLayers},
                                        std::pair{&o.barLayers, &options.barLayers}})
        if (parser.isSet(*option) && !(*range = parseLayers(option->names().first(), parser.value(*option), error)))
            return false;
    if (parser.isSet(o.steps)) {
        const auto steps = parseRange(QStringLiteral("steps"), parser.value(o.steps), std::numeric_limits<qint64>::max(), QStringLiteral("0-1000"), error);
        if (!steps)
            return false;
        options.steps = StepWindow{steps->first, steps->second};
    }
    if (parser.isSet(o.layer) && !(options.layer = wholeOption(QStringLiteral("layer"), parser.value(o.layer), 0, INT_MAX, error)))
        return false;
    if (parser.isSet(o.head) && !(options.head = wholeOption(QStringLiteral("head"), parser.value(o.head), 0, INT_MAX, error)))
        return false;
    if (parser.value(o.step) == QLatin1String("last"))
        return true;
    options.step = wholeOption(QStringLiteral("step"), parser.value(o.step), 0, std::numeric_limits<qint64>::max(), error, QStringLiteral("last or a whole number"));
    return options.step.has_value();
}

// The sides: a preset, then --size or --width/--height.
bool readSides(const CommandParser &parser, const ExportOptionSet &o, FigureSize &size, QString *error)
{
    if (parser.isSet(o.preset)) {
        const auto preset = FigureSize::preset(parser.value(o.preset));
        if (!preset) {
            *error = QStringLiteral("unknown --preset '%1'; one of: %2").arg(printableText(parser.value(o.preset)), FigureSize::presetNames().join(QLatin1String(", ")));
            return false;
        }
        size = *preset;
    }
    if (parser.isSet(o.size)) {
        const auto wh = FigureSize::parseSize(parser.value(o.size), error);
        if (!wh) {
            *error = QStringLiteral("--size: %1").arg(*error);
            return false;
        }
        // FigureSize::isValid compares whole pixels: a side past an int's (4294968296 px) wrapped to
        // a small one (1000 px) and passed. The sides are checked as the numbers they are first.
        const double widthPx = wh->first / 72 * FigureSize::kLayoutDpi, heightPx = wh->second / 72 * FigureSize::kLayoutDpi;
        if (!(widthPx <= kMaxSidePx && heightPx <= kMaxSidePx)) {
            *error = QStringLiteral("--size takes a width and a height of at most %1 px (%2 in) each, not '%3'")
                         .arg(kMaxSidePx).arg(kMaxSidePx / FigureSize::kLayoutDpi, 0, 'f', 2).arg(printableText(parser.value(o.size)));
            return false;
        }
        std::tie(size.widthPt, size.heightPt) = *wh;
    }
    if (parser.isSet(o.width) || parser.isSet(o.height)) {
        std::optional<qint64> w, h;
        if (parser.isSet(o.width) &&
            !(w = wholeOption(QStringLiteral("width"), parser.value(o.width), kMinWidthPx, kMaxSidePx, error, QStringLiteral("a whole number of pixels"))))
            return false;
        if (parser.isSet(o.height) &&
            !(h = wholeOption(QStringLiteral("height"), parser.value(o.height), kMinHeightPx, kMaxSidePx, error, QStringLiteral("a whole number of pixels"))))
            return false;
        const FigureSize pixels = FigureSize::fromPixels(w ? int(*w) : size.layoutSize().width(), h ? int(*h) : size.layoutSize().height());
        size.widthPt = pixels.widthPt;
        size.heightPt = pixels.heightPt;
    }
    return true;
}

// Then --dpi or --scale, --font-size, the figure as a whole, and the theme.
bool readRendering(const CommandParser &parser, const ExportOptionSet &o, FigureSize &size, QString *error)
{
    if (parser.isSet(o.scale)) {
        const auto scale = numberOption(QStringLiteral("scale"), parser.value(o.scale), kMinDpi / FigureSize::kLayoutDpi, kMaxDpi / FigureSize::kLayoutDpi, error);
        if (!scale)
            return false;
        size.dpi = FigureSize::kLayoutDpi * *scale;
    }
    if (parser.isSet(o.dpi)) {
        const auto dpi = numberOption(QStringLiteral("dpi"), parser.value(o.dpi), kMinDpi, kMaxDpi, error, QStringLiteral("dots per inch"));
        if (!dpi)
            return false;
        size.dpi = *dpi;
    }
    if (parser.isSet(o.font)) {
        const auto font = numberOption(QStringLiteral("font-size"), parser.value(o.font), kMinFontPt, kMaxFontPt, error, QStringLiteral("points"));
        if (!font)
            return false;
        size.fontPt = *font;
    }
    if (!size.isValid(error))
        return false;
    const QString theme = parser.value(o.theme).toLower();
    if (theme != QLatin1String("light") && theme != QLatin1String("dark")) {
        *error = QStringLiteral("unknown --theme '%1'; one of: light, dark").arg(printableText(parser.value(o.theme)));
        return false;
    }
    size.dark = theme == QLatin1String("dark");
    return true;
}

// The options that only name things in the runs, and the switches.
void readNames(const CommandParser &parser, const ExportOptionSet &o, ExportOptions &options)
{
    options.types = parser.valueIfSet(o.types);
    options.byLayer = parser.valueIfSet(o.byLayer);
    options.block = parser.valueIfSet(o.block);
    options.expert = parser.valueIfSet(o.expert);
    options.title = parser.valueIfSet(o.title);
    options.panelTitles = parser.values(o.panelTitle);
    options.type = parser.value(o.type);
    options.relativeDepth = parser.isSet(o.relativeDepth);
    options.relativeStep = parser.isSet(o.relativeStep);
    options.scalar = parser.valueIfSet(o.scalar);
    options.base = parser.valueIfSet(o.base);
    options.alphaGuide = !parser.isSet(o.noGuide);
    options.alphaCi = parser.isSet(o.alphaCi);
}

} // namespace

ParsedOptions<ExportOptions> parseExportOptions(const QStringList &arguments)
{
    CommandParser parser(QStringLiteral("export"), QStringLiteral(
        "Render one of RankScope's figures to PNG, SVG or PDF (or the numbers behind it to CSV), headless.\n"
        "Figures (--figure NAME):\n") + figureHelp() + QStringLiteral(
        "Sizes on paper: --preset column|two-column|slide, or --size 3.3x2.4in with --dpi and --font-size."));
    parser.addPositionalArgument(QStringLiteral("SOURCE"), QStringLiteral("A checkpoint folder (analysed first if needed) or a results file; several to compare runs."), QStringLiteral("SOURCE…"));
    const ExportOptionSet o;
    parser.addOptions({o.figure, o.output, o.metric, o.step, o.types, o.layers, o.lineLayers, o.barLayers, o.steps});
    parser.addEnergyOption();
    parser.addOptions({o.preset, o.size, o.dpi, o.font, o.width, o.height, o.scale, o.title, o.panelTitle, o.layer, o.type, o.byLayer, o.noGuide,
                       o.alphaCi, o.relativeDepth, o.relativeStep, o.block, o.expert, o.legend, o.theme, o.colourRange, o.vmin, o.vmax, o.spectrumTail,
                       o.keep, o.maxError, o.head, o.scalar, o.base});
    if (const std::optional<CommandExit> exit = parser.parseArguments(arguments.mid(1)))
        return *exit;
    if (parser.positionalArguments().isEmpty())
        return parser.refusal(QStringLiteral("give a SOURCE"));
    ExportOptions options;
    options.sources = parser.positionalArguments();
    if (parser.isSet(o.base) && !QFileInfo(options.sources.first()).isDir())
        return parser.refusal(QStringLiteral("--base merges the adapter factors of a run's folder: the first SOURCE must be that folder, not a results file"));
    if (parser.isSet(o.base) && !QFileInfo(parser.value(o.base)).isDir())
        return parser.refusal(QStringLiteral("--base %1: not a folder").arg(printableText(parser.value(o.base))));
    QString error;
    if (!readFigure(parser, o, options, &error) || !readNumbers(parser, o, options, &error) || !readSides(parser, o, options.size, &error) ||
        !readRendering(parser, o, options.size, &error) || !readColourRanges(parser, o, options, &error))
        return parser.refusal(error);
    const std::optional<LegendPosition> legend = parseLegendPosition(parser.value(o.legend));
    if (!legend)
        return parser.refusal(QStringLiteral("unknown --legend '%1'; one of: %2").arg(printableText(parser.value(o.legend)), legendPositionNames().join(QLatin1String(", "))));
    options.legend = *legend;
    const QString tail = parser.value(o.spectrumTail);
    if (tail != QLatin1String("ccdf") && tail != QLatin1String("density"))
        return parser.refusal(QStringLiteral("unknown --eigenvalues '%1'; one of: ccdf, density").arg(printableText(tail)));
    options.spectrumTail = tail == QLatin1String("ccdf") ? SpectrumTail::Ccdf : SpectrumTail::Density;
    readNames(parser, o, options);
    return options;
}

namespace {

// What the figure draws that only an opt-in analysis computes is asked of a folder: the heads
// figure its heads, a metric of --rand-distance, --delta or --subspace that analysis, --alpha-ci
// alpha's interval. A folder's
// figure is then the same whatever earlier analyses left in its results file (loadRun shows what
// is asked, no more), computed when they left nothing. A results file is drawn as it is.
void askForWhatIsDrawn(const ExportOptions &options, AnalysisSettings &settings)
{
    settings.heads = options.kind.info().heads;
    settings.alphaCi = options.alphaCi;
    if (options.metric)
        askForMetric(settings, *options.metric);
}

// Every source loaded into the state, the first as the run and the others compared with it, its
// messages and issues said. Clean or skipped (RunSummary) over all of them; nullopt, said, when
// one has nothing to draw.
std::optional<ExitStatus> loadSources(const ExportOptions &options, ViewState &state, QTextStream &err)
{
    RunLoadOptions load;
    load.settings.energy = options.energy;
    askForWhatIsDrawn(options, load.settings);
    QList<ExitStatus> statuses;
    for (qsizetype i = 0; i < options.sources.size(); ++i) {
        const LoadedRun loaded = loadRun(options.sources[i], load);
        for (const QString &message : loaded.messages)
            err << message << '\n';
        const std::optional<RunAnalysis> &run = loaded.run;
        if (run)
            for (const AnalysisIssue &issue : run->issues)
                err << issue.text() << '\n';
        if (!run || RunSummary(*run).exitStatus() == ExitStatus::Failed) {
            err << printableText(options.sources[i]) << ": nothing to draw\n";
            return std::nullopt;
        }
        statuses << RunSummary(*run).exitStatus();
        const QFileInfo info(options.sources[i]);
        const QString name = info.isDir() ? info.fileName() : info.completeBaseName();
        if (i == 0)
            state.setRun(*run, name);
        else
            state.addComparedRun(*run, name);
    }
    // --base: the first run's merged weights and the base's own, two runs more, as the window adds them.
    if (options.base) {
        const QString &folder = options.sources.first();
        const LoadedRun merged = loadRun(folder, BaseModelRuns::mergedOptions(load, folder, *options.base));
        const LoadedRun own = loadRun(*options.base, BaseModelRuns::baseOptions(load, folder, *options.base, state.run()));
        for (const QString &message : merged.messages + own.messages)
            err << message << '\n';
        for (const LoadedRun *loaded : {&merged, &own})
            if (loaded->run)
                for (const AnalysisIssue &issue : loaded->run->issues)
                    err << issue.text() << '\n';
        if (merged.run && !merged.run->results.isEmpty())
            state.addComparedRun(*merged.run, state.runName() + QStringLiteral(" \u00b7 merged"));
        if (own.run) {
            const RunAnalysis adapted = BaseModelRuns::adaptedOnly(*own.run, state.run());
            if (!adapted.results.isEmpty())
                state.addComparedRun(adapted, QFileInfo(*options.base).fileName() + QStringLiteral(" \u00b7 base"));
        }
        if (!merged.run || merged.run->results.isEmpty() || !own.run) {
            err << printableText(*options.base) << ": nothing merged (see above)\n";
            statuses << ExitStatus::Skipped;
        } else {
            statuses << RunSummary(*merged.run).exitStatus() << RunSummary(*own.run).exitStatus();
        }
    }
    return combinedExitStatus(statuses);
}

// The view the options ask for, now that the runs say what there is: block, expert, axes, legend,
// types, layers and step. Empty, or why the options name what the runs do not have.
QString configureState(const ExportOptions &options, ViewState &state)
{
    if (options.block) {
        if (!state.blocks().contains(*options.block))
            return QStringLiteral("no block '%1' (the runs have: %2)").arg(*options.block, state.blocks().join(QLatin1String(", ")));
        state.setBlock(*options.block);
    }
    if (options.expert) {
        if (!state.experts().contains(*options.expert))
            return QStringLiteral("no expert '%1'").arg(*options.expert);
        state.setExpert(*options.expert);
    }
    state.setRelativeDepth(options.relativeDepth);
    state.setLegendPosition(options.legend);
    state.setRelativeStep(options.relativeStep);
    if (options.types) {
        QSet<MatrixType> wanted;
        for (const QString &t : options.types->split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            QString error;
            const auto type = matrixTypeOption(QStringLiteral("types"), t, &error);
            if (!type)
                return error;
            wanted.insert(*type);
        }
        for (MatrixType type : kAllMatrixTypes)
            state.setTypeVisible(type, wanted.contains(type));
    }
    if (options.layers)
        state.setLayerRange(*options.layers);
    if (options.lineLayers)
        state.setLayerRange(LayerView::Lines, *options.lineLayers);
    if (options.barLayers)
        state.setLayerRange(LayerView::Bars, *options.barLayers);
    if (options.steps) {
        const QList<qint64> steps = state.steps();
        if (std::none_of(steps.begin(), steps.end(), [&](qint64 step) { return options.steps->contains(step); }))
            return QStringLiteral("no checkpoint at steps %1–%2 (the run has steps %3–%4)")
                .arg(options.steps->first).arg(options.steps->last).arg(steps.value(0)).arg(steps.isEmpty() ? 0 : steps.last());
    }
    if (options.step) {
        if (!state.steps().contains(*options.step))
            return QStringLiteral("no checkpoint at step %1").arg(*options.step);
        state.setCurrentStep(*options.step);
    }
    return {};
}

// --scalar: each source's logs (TrainingLogs), for the curves under the lines, one per run that
// logged the tag. Empty, or why not.
QString loadScalars(const ExportOptions &options, ViewState &state)
{
    if (!options.scalar)
        return {};
    if (options.kind.info().curves == FigureCurves::None)
        return QStringLiteral("--scalar draws under the lines: use it with --figure lines+curves (or lines)");
    QStringList tags;
    bool found = false;
    for (qsizetype i = 0; i < options.sources.size(); ++i) {
        const ScalarLog log = QFileInfo(options.sources[i]).isDir() ? TrainingLogs::read(options.sources[i]) : ScalarLog();
        found = found || log.find(*options.scalar);
        for (const ScalarSeries &s : log.series())
            if (!tags.contains(s.tag))
                tags << s.tag;
        state.setScalarLogAt(int(i), log);
    }
    if (found)
        return {};
    tags.sort();
    return QStringLiteral("--scalar %1: not among the scalars %2 hold (%3)")
        .arg(printableText(*options.scalar),
             options.sources.size() == 1 ? printableText(options.sources.first()) + QStringLiteral("'s logs") : QStringLiteral("the runs' logs"),
             tags.isEmpty() ? QStringLiteral("none found; rankscope info says where it looked") : printableText(briefList(tags)));
}

// The figure drawn from the state by the window's own view, and written to --out.
int drawFigure(ViewState &state, const ExportOptions &options, ExitStatus loaded, QTextStream &err)
{
    auto usage = [&](const QString &message) {
        err << "rankscope export: " << message << '\n';
        return 1;
    };
    const QString &path = options.out;
    FigureView view(&state, options.kind);
    if (const QString problem = view.configure(state, options); !problem.isEmpty())
        return usage(problem);
    if (!options.panelTitles.isEmpty())
        view.setPanelTitles(options.panelTitles);
    // A figure with nothing at all to draw is refused with the reason, not written as a picture
    // of the reason (a script would take it for a figure); one with some panels empty is drawn.
    QStringList reasons, emptyPanels; // the reasons, and "title: reason" of each empty panel
    qsizetype panels = 0;
    for (const QList<ChartView *> &row : view.panels(options.size.layoutSize()))
        for (const ChartView *panel : row) {
            ++panels;
            if (const QString reason = panel->noDataMessage(); !reason.isEmpty()) {
                emptyPanels << printableText(panel->title()) + QStringLiteral(": ") + printableText(reason);
                if (!reasons.contains(reason))
                    reasons << reason;
            }
        }
    if (panels > 0 && emptyPanels.size() == panels)
        return usage(QStringLiteral("nothing to draw: ") + reasons.join(QStringLiteral("; ")));
    QString error;
    const bool csv = QFileInfo(path).suffix().toLower() == QLatin1String("csv");
    if (csv ? !writeOutputFile(path, view.dataCsv().toUtf8(), &error) : !view.exportTo(path, options.size, &error, options.title)) {
        err << "rankscope export: " << printableText(error) << '\n';
        return 1;
    }
    err << "wrote " << printableText(path) << '\n';
    // A panel with nothing to draw says why in the figure; standard error says it too.
    for (const QString &empty : std::as_const(emptyPanels))
        err << printableText(path) << ": " << empty << '\n';
    return int(loaded);
}

} // namespace

int runExportCommand(const QStringList &arguments)
{
    const ParsedOptions<ExportOptions> parsed = parseExportOptions(arguments);
    if (!parsed.options)
        return parsed.exit.print();
    const ExportOptions &options = *parsed.options;
    QTextStream err(stderr);
    ViewState state;
    state.setEnergy(options.energy);
    const std::optional<ExitStatus> loaded = loadSources(options, state, err);
    if (!loaded)
        return 1;
    if (const QString problem = configureState(options, state); !problem.isEmpty()) {
        err << "rankscope export: " << problem << '\n';
        return 1;
    }
    if (const QString problem = loadScalars(options, state); !problem.isEmpty()) {
        err << "rankscope export: " << problem << '\n';
        return 1;
    }
    return drawFigure(state, options, *loaded, err);
}

} // namespace rankscope
