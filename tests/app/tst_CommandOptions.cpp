// Each command's arguments read into its options struct, in process: every value where the run
// takes it from, what one option implies of another, the refusals word for word (and their exit
// status), --help, and the options several commands share said once, alike in each --help.
#include "AnalyzeCommand.h"
#include "ExportCommand.h"
#include "FigureCatalog.h"
#include "HeadlessMessages.h"
#include "InfoCommand.h"
#include "TestSuite.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>

namespace tst_commandoptions {

using namespace rankscope;

namespace {

// The --help line of --name (with its value and help text), as the command prints it.
QString helpLine(const QString &help, const QString &name)
{
    const QRegularExpression line(QStringLiteral("^\\s*--%1\\b.*$").arg(name), QRegularExpression::MultilineOption);
    return line.match(help).captured(0).trimmed();
}

} // namespace

class TestCommandOptions : public QObject {
    Q_OBJECT
private slots:
    void analyzeReadsEveryOption()
    {
        const auto parsed = parseAnalyzeOptions({"analyze", "runs/seed0", "--energy", "0.8", "--jobs", "1", "--method", "svd", "--reference", "100",
                                                 "--subspace-k", "8", "--autosave", "0", "--settle", "5", "--csv", "-", "--rules", "r.json",
                                                 "--no-cache", "--quiet", "--watch", "--rand-distance"});
        QVERIFY2(parsed.options, qPrintable(parsed.exit.err));
        const AnalyzeOptions &o = *parsed.options;
        QCOMPARE(o.folder, QStringLiteral("runs/seed0"));
        QCOMPARE(o.settings.energy, 0.8);
        QCOMPARE(o.settings.jobs, 1);
        QCOMPARE(o.settings.method, SvdMethod::ExactSvd);
        // --reference asks for --delta, and --subspace-k for --subspace.
        QVERIFY(o.settings.delta);
        QCOMPARE(o.settings.referenceStep, std::optional<qint64>(100));
        QVERIFY(o.settings.subspace);
        QCOMPARE(o.settings.subspaceK, 8);
        QVERIFY(o.settings.randDistance);
        QCOMPARE(o.settings.autosaveSeconds, 0.0);
        QCOMPARE(o.settleSeconds, 5.0);
        QCOMPARE(o.csv, std::optional<QString>(QStringLiteral("-")));
        QVERIFY(!o.json && !o.results);
        QCOMPARE(o.rules, std::optional<QString>(QStringLiteral("r.json")));
        QVERIFY(!o.useCache && o.quiet && o.watch && !o.eachRun);
        QVERIFY(o.jobsNote.isEmpty());
    }

    void analyzeDefaults()
    {
        const auto parsed = parseAnalyzeOptions({"analyze", "run", "--runs"});
        QVERIFY(parsed.options);
        const AnalyzeOptions &o = *parsed.options;
        QCOMPARE(o.settings.energy, 0.90);
        QCOMPARE(o.settings.jobs, 0);
        QCOMPARE(o.settings.method, SvdMethod::FastGram);
        QVERIFY(!o.settings.delta && !o.settings.subspace && !o.settings.randDistance && !o.settings.referenceStep);
        QCOMPARE(o.settings.autosaveSeconds, 10.0);
        QCOMPARE(o.settleSeconds, 3.0);
        QVERIFY(o.settings.resultsPath.isEmpty()); // the run decides: --results, or the cache
        QVERIFY(o.useCache && !o.quiet && !o.watch && o.eachRun);
        QVERIFY(!o.csv && !o.json && !o.results && !o.rules);
    }

    void jobsBeyondTheCoresAreClampedAndSaid()
    {
        const int cores = std::max(1, QThread::idealThreadCount());
        const auto parsed = parseAnalyzeOptions({"analyze", "run", "--jobs", QString::number(cores + 5)});
        QVERIFY(parsed.options);
        QCOMPARE(parsed.options->settings.jobs, cores);
        QCOMPARE(parsed.options->jobsNote, QStringLiteral("note: --jobs %1 is more than the %2 cores this process may use: %2 workers\n").arg(cores + 5).arg(cores));
    }

    void analyzeRefusesWordForWord_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("err");
        QTest::newRow("method") << QStringList{"run", "--method", "qr"} << "rankscope analyze: --method is gram or svd\n";
        QTest::newRow("reference") << QStringList{"run", "--reference", "-1"} << "rankscope analyze: --reference takes a step (a whole number ≥ 0)\n";
        QTest::newRow("energy") << QStringList{"run", "--energy", "0"} << "rankscope analyze: --energy takes a number in (0, 1], not '0'\n";
        QTest::newRow("subspace-k") << QStringList{"run", "--subspace-k", "0"} << "rankscope analyze: --subspace-k takes a whole number from 1 to 4096, not '0'\n";
        QTest::newRow("settle") << QStringList{"run", "--settle", "nan"} << "rankscope analyze: --settle takes seconds from 0 to 86400, not 'nan'\n";
        QTest::newRow("unknown") << QStringList{"run", "--bogus"} << "rankscope analyze: Unknown option 'bogus'.\n";
    }
    void analyzeRefusesWordForWord()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, err);
        const auto parsed = parseAnalyzeOptions(QStringList{"analyze"} + arguments);
        QVERIFY(!parsed.options);
        QCOMPARE(parsed.exit.status, 1);
        QCOMPARE(parsed.exit.err, err);
        QVERIFY(parsed.exit.out.isEmpty());
    }

    // Without a FOLDER, analyze says so and shows its options; info only says so.
    void aFolderIsNeeded()
    {
        const auto analyze = parseAnalyzeOptions({"analyze"});
        QVERIFY(!analyze.options);
        QCOMPARE(analyze.exit.status, 1);
        QVERIFY(analyze.exit.err.startsWith("rankscope analyze: give exactly one FOLDER\nUsage: "));
        QVERIFY(analyze.exit.err.contains("--energy"));
        const auto info = parseInfoOptions({"info", "a", "b"});
        QCOMPARE(info.exit.status, 1);
        QCOMPARE(info.exit.err, QStringLiteral("rankscope info: give exactly one FOLDER\n"));
        const auto exported = parseExportOptions({"export", "--figure", "lines"});
        QCOMPARE(exported.exit.status, 1);
        QCOMPARE(exported.exit.err, QStringLiteral("rankscope export: give a SOURCE\n"));
    }

    void helpIsAnsweredFirst()
    {
        for (const CommandExit &ended : {parseAnalyzeOptions({"analyze", "--help"}).exit, parseInfoOptions({"info", "--help"}).exit,
                                         parseExportOptions({"export", "--help", "--figure", "nonsense"}).exit}) {
            QCOMPARE(ended.status, 0);
            QVERIFY(ended.out.startsWith("Usage: "));
            QVERIFY(ended.out.contains("--help"));
            QVERIFY(ended.err.isEmpty());
        }
        QVERIFY(!parseInfoOptions({"info", "--help"}).options);
    }

    // --energy (analyze, export) and --rules (analyze, info) are one option each: one help text.
    void sharedOptionsAreDeclaredOnce()
    {
        const QString analyze = parseAnalyzeOptions({"analyze", "--help"}).exit.out;
        const QString exported = parseExportOptions({"export", "--help"}).exit.out;
        const QString info = parseInfoOptions({"info", "--help"}).exit.out;
        QCOMPARE(helpLine(analyze, "energy").simplified(), QStringLiteral("--energy <τ> Energy τ kept for compression_pct (default 0.90)."));
        QCOMPARE(helpLine(exported, "energy").simplified(), helpLine(analyze, "energy").simplified());
        QVERIFY(!helpLine(info, "rules").isEmpty());
        QCOMPARE(helpLine(info, "rules").simplified(), helpLine(analyze, "rules").simplified());
        // And both read it alike.
        QTemporaryDir dir;
        const QString exportRefusal = parseExportOptions({"export", "run", "--figure", "lines", "--out", dir.filePath("x.png"), "--energy", "2"}).exit.err;
        QCOMPARE(exportRefusal, QStringLiteral("rankscope export: --energy takes a number in (0, 1], not '2'\n"));
        QCOMPARE(parseAnalyzeOptions({"analyze", "run", "--energy", "2"}).exit.err.mid(int(qstrlen("rankscope analyze"))),
                 exportRefusal.mid(int(qstrlen("rankscope export"))));
    }

    // Every figure is one row of FigureCatalog: export --help lists each NAME with what it draws,
    // and the manual page and the bash completion, as the build writes them, offer exactly the
    // catalog's names, in its order.
    void figureNamesAreTheCatalogs()
    {
        QStringList names;
        for (FigureKind figure : allFigures())
            names << QString::fromLatin1(figure.info().id);
        QCOMPARE(figureNames(QStringLiteral(" ")), names.join(' '));
        const auto help = parseExportOptions({"export", "--help"});
        QVERIFY(!help.options);
        for (FigureKind figure : allFigures())
            QVERIFY2(help.exit.out.contains(QStringLiteral("\n  %1 ").arg(QLatin1String(figure.info().id))), figure.info().id);

        auto read = [](const char *path) {
            QFile file(QStringLiteral(RANKSCOPE_REFERENCE_DIR "/") + QLatin1String(path));
            return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
        };
        const QRegularExpression offered(QStringLiteral("--figure\\)\\s*\\n\\s*COMPREPLY=\\(\\$\\(compgen -W \"([^\"]*)\""));
        QCOMPARE(offered.match(read("rankscope.bash-completion")).captured(1), names.join(' '));
        // The man page's --figure item: each NAME in bold, what it draws after it in brackets.
        const QString manPage = read("rankscope.1");
        const qsizetype from = manPage.indexOf(QLatin1String(".BI \\-\\-figure \" NAME\""));
        QVERIFY(from >= 0);
        const QString item = manPage.mid(from, manPage.indexOf(QLatin1String("\n.TP"), from) - from);
        QStringList inManPage;
        static const QRegularExpression bold(QStringLiteral("^\\.B (\\S+)\\n\\("), QRegularExpression::MultilineOption);
        for (auto it = bold.globalMatch(item); it.hasNext();)
            inManPage << it.next().captured(1);
        QCOMPARE(inManPage, names);
    }

    void exportReadsEveryOption()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("bars.png");
        const auto parsed = parseExportOptions({"export", "runs/a", "runs/b.h5", "--figure", "bars", "--out", out, "--preset", "column", "--step", "200",
                                                "--layers", "3-1", "--legend", "below", "--theme", "dark", "--no-guide-band", "--types", "Q,K",
                                                "--metric", "stable_rank", "--energy", "0.5", "--block", "encoder", "--title", "T", "--relative-step"});
        QVERIFY2(parsed.options, qPrintable(parsed.exit.err));
        const ExportOptions &o = *parsed.options;
        QCOMPARE(o.sources, QStringList({"runs/a", "runs/b.h5"}));
        QCOMPARE(o.kind, FigureKind::Bars);
        QCOMPARE(o.out, out);
        QCOMPARE(o.metric, std::optional<Metric>(Metric::StableRank));
        QCOMPARE(o.energy, 0.5);
        QCOMPARE(o.step, std::optional<qint64>(200));
        QVERIFY(o.layers && o.layers->first == 1 && o.layers->last == 3);
        QVERIFY(o.legend == LegendPosition::Below);
        const FigureSize column = *FigureSize::preset("column");
        QCOMPARE(o.size.widthPt, column.widthPt);
        QCOMPARE(o.size.dpi, column.dpi);
        QCOMPARE(o.size.fontPt, column.fontPt);
        QVERIFY(o.size.dark);
        QVERIFY(!o.alphaGuide && o.relativeStep && !o.relativeDepth);
        QCOMPARE(o.types, std::optional<QString>("Q,K"));
        QCOMPARE(o.block, std::optional<QString>("encoder"));
        QCOMPARE(o.title, std::optional<QString>("T"));
        QVERIFY(!o.expert && !o.byLayer && !o.layer);
    }

    void exportSizesAndRefusals()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("f.svg");
        const auto pixels = parseExportOptions({"export", "run", "--figure", "spectrum", "--out", out, "--width", "600", "--scale", "2", "--layer", "3", "--type", "Q"});
        QVERIFY2(pixels.options, qPrintable(pixels.exit.err));
        QCOMPARE(pixels.options->size.layoutSize(), QSize(600, 750));
        QCOMPARE(pixels.options->size.dpi, 192.0);
        QCOMPARE(pixels.options->layer, std::optional<qint64>(3));
        QCOMPARE(pixels.options->type, QStringLiteral("Q"));
        QVERIFY(!pixels.options->step); // the last
        auto refusal = [&](const QStringList &more) {
            return parseExportOptions(QStringList{"export", "run", "--out", out} + more).exit.err;
        };
        const QString figures = figureNames(); // "lines, bars, …": the catalog's, in its order (figureNamesAreTheCatalogs)
        QVERIFY(figures.startsWith("lines, bars, heatmaps, spectrum, spectrogram, heads, plan, "));
        QCOMPARE(refusal({"--figure", "pie"}), QStringLiteral("rankscope export: unknown --figure 'pie'; one of: %1\n").arg(figures));
        QCOMPARE(parseExportOptions({"export", "run", "--figure", "lines", "--out", dir.filePath("f.gif")}).exit.err,
                 QStringLiteral("rankscope export: --out needs a .png, .svg, .pdf or .csv file\n"));
        QVERIFY(refusal({"--figure", "lines", "--metric", "nope"}).startsWith(QStringLiteral("rankscope export: unknown --metric 'nope'; one of: stable_rank, compression_pct, ")));
        QCOMPARE(refusal({"--figure", "lines", "--theme", "sepia"}), QStringLiteral("rankscope export: unknown --theme 'sepia'; one of: light, dark\n"));
        QCOMPARE(refusal({"--figure", "lines", "--width", "50"}), QStringLiteral("rankscope export: --width takes a whole number of pixels from 120 to 20000, not '50'\n"));
        QCOMPARE(refusal({"--figure", "lines", "--step", "first"}), QStringLiteral("rankscope export: --step takes last or a whole number, 0 or more, not 'first'\n"));
        QCOMPARE(refusal({"--figure", "lines", "--energy", "1.5"}), QStringLiteral("rankscope export: --energy takes a number in (0, 1], not '1.5'\n"));
        QVERIFY(refusal({"--figure", "lines", "--legend", "nowhere"}).startsWith("rankscope export: unknown --legend 'nowhere'; one of: auto, "));
        QCOMPARE(parseExportOptions({"export", "run", "--out", out, "--figure", "pie"}).exit.status, 1);
    }

    // The window's labels are taken as well as the CSV's names, in any case; a wrong one is named
    // with every value that would have been right.
    void labelsAsTheWindowShowsThem()
    {
        QString error;
        QCOMPARE(matrixTypeOption("types", QStringLiteral("MLP\u2191"), &error), std::optional<MatrixType>(MatrixType::MlpUp));
        QCOMPARE(matrixTypeOption("types", "mlp_up", &error), std::optional<MatrixType>(MatrixType::MlpUp));
        QCOMPARE(matrixTypeOption("type", "MLP gate", &error), std::optional<MatrixType>(MatrixType::MlpGate));
        QVERIFY(!matrixTypeOption("types", "MLP", &error));
        QCOMPARE(error, QStringLiteral("unknown --types 'MLP'; one of: Q, K, V, O, MLP_UP (MLP\u2191), MLP_DOWN (MLP\u2193), MLP_GATE (MLP gate)"));
        QCOMPARE(metricOption("metric", "stable_rank", &error), std::optional<Metric>(Metric::StableRank));
        QCOMPARE(metricOption("metric", "Stable rank", &error), std::optional<Metric>(Metric::StableRank));
        QCOMPARE(metricOption("metric", QStringLiteral("weighted \u03b1"), &error), std::optional<Metric>(Metric::WeightedAlpha));
        QVERIFY(!metricOption("metric", "sr", &error));
        QVERIFY2(error.startsWith("unknown --metric 'sr'; one of: stable_rank, compression_pct, alpha, weighted_alpha, "), qPrintable(error));
        for (const Metric metric : viewMetrics())
            QVERIFY2(error.contains(QLatin1String(metric.info().column)), metric.info().column);
    }

    // --title over the panels, --panel-title each, and the heatmaps' colour ranges: one value for
    // every panel or one per panel, an empty one leaving that end fitted.
    void exportTitlesAndColourRanges()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("f.png");
        auto parsed = parseExportOptions({"export", "run", "--figure", "heatmaps", "--out", out, "--title", "D16", "--panel-title", "A",
                                          "--panel-title", "", "--vmin", "0,1.5", "--vmax", ",6", "--colour-range", "step"});
        QVERIFY2(parsed.options, qPrintable(parsed.exit.err));
        QCOMPARE(parsed.options->title, std::optional<QString>("D16"));
        QCOMPARE(parsed.options->panelTitles, (QStringList{"A", ""}));
        const QList<HeatmapColourRange> &ranges = parsed.options->colourRanges;
        QCOMPARE(ranges.size(), 2);
        QCOMPARE(ranges[0], (HeatmapColourRange{HeatmapColourRange::Fit::ShownStep, 0.0, std::nullopt}));
        QCOMPARE(ranges[1], (HeatmapColourRange{HeatmapColourRange::Fit::ShownStep, 1.5, 6.0}));
        // By default the colours follow the step shown; all-steps spans every step.
        parsed = parseExportOptions({"export", "run", "--figure", "heatmaps", "--out", out, "--vmax", "50"});
        QVERIFY(parsed.options);
        QCOMPARE(parsed.options->colourRanges, (QList<HeatmapColourRange>{{HeatmapColourRange::Fit::ShownStep, std::nullopt, 50.0}}));
        parsed = parseExportOptions({"export", "run", "--figure", "heatmaps", "--out", out, "--colour-range", "all-steps"});
        QVERIFY(parsed.options);
        QCOMPARE(parsed.options->colourRanges, (QList<HeatmapColourRange>{{HeatmapColourRange::Fit::AllSteps, std::nullopt, std::nullopt}}));
        auto refusal = [&](const QStringList &more) { return parseExportOptions(QStringList{"export", "run", "--figure", "heatmaps", "--out", out} + more).exit.err; };
        QCOMPARE(refusal({"--vmin", "5", "--vmax", "1"}), QStringLiteral("rankscope export: --vmin must be below --vmax (panel 1: 5 and 1)\n"));
        QCOMPARE(refusal({"--colour-range", "run"}), QStringLiteral("rankscope export: unknown --colour-range 'run'; one of: all-steps, step\n"));
        QVERIFY(refusal({"--vmin", "x"}).startsWith("rankscope export: --vmin takes a number"));
    }

    // No --title: the generated titles (none under a paper's caption); --title '': none, kept as
    // asked, not taken for "not given".
    void exportEmptyTitleIsKept()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("f.png");
        auto parsed = parseExportOptions({"export", "run", "--figure", "lines", "--out", out});
        QVERIFY(parsed.options);
        QVERIFY(!parsed.options->title);
        parsed = parseExportOptions({"export", "run", "--figure", "lines", "--out", out, "--title", ""});
        QVERIFY(parsed.options);
        QCOMPARE(parsed.options->title, std::optional<QString>(QString()));
    }

    // Without a desktop session Qt's notice of a missing XDG_RUNTIME_DIR is dropped; every other
    // warning, Qt's complaints about a runtime directory that is wrong included, still gets through.
    void headlessCommandsDropOnlyTheRuntimeDirNotice()
    {
        static QStringList seen;
        seen.clear();
        const QtMessageHandler before = qInstallMessageHandler([](QtMsgType, const QMessageLogContext &, const QString &m) { seen << m; });
        filterHeadlessMessages();
        qWarning("QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to '/tmp/runtime-user'");
        qWarning("QStandardPaths: wrong permissions on runtime directory /run/user/1000, 0755 instead of 0700");
        qWarning("something the user needs");
        qInstallMessageHandler(before);
        QCOMPARE(seen, (QStringList{"QStandardPaths: wrong permissions on runtime directory /run/user/1000, 0755 instead of 0700",
                                    "something the user needs"}));
        QVERIFY(!isMissingRuntimeDirNotice(QtInfoMsg, "QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to '/tmp/x'"));
    }

    void infoReadsItsOptions()
    {
        auto parsed = parseInfoOptions({"info", "run"});
        QVERIFY(parsed.options);
        QCOMPARE(parsed.options->folder, QStringLiteral("run"));
        QCOMPARE(parsed.options->step, QStringLiteral("last"));
        QVERIFY(!parsed.options->rules && !parsed.options->suggestRules);
        parsed = parseInfoOptions({"info", "run", "--step", "final", "--rules", "r.json", "--suggest-rules", "draft.json"});
        QVERIFY(parsed.options);
        QCOMPARE(parsed.options->step, QStringLiteral("final"));
        QCOMPARE(parsed.options->rules, std::optional<QString>("r.json"));
        QCOMPARE(parsed.options->suggestRules, std::optional<QString>("draft.json"));
    }
};

RANKSCOPE_TEST_MAIN(TestCommandOptions)
} // namespace tst_commandoptions

#include "tst_CommandOptions.moc"
