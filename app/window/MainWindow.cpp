#include "MainWindow.h"

#include "AboutBox.h"
#include "DemoBanner.h"
#include "DemoRun.h"
#include "HelpDialogs.h"
#include "SkippedFilesDialog.h"
#include "SpinBoxKeyForwarder.h"
#include "ExportDialog.h"
#include "HeadView.h"
#include "RankPlanPanel.h"
#include "io/logs/TrainingLogs.h"
#include "RunListPanel.h"
#include "LayerBarChart.h"
#include "MetricLineChart.h"
#include "SpectrumView.h"
#include "BlockExpertSelector.h"
#include "TypeFilterChips.h"
#include "TypeLayerHeatmap.h"
#include "figures/ViewState.h"
#include "WindowTheme.h"
#include "analysis/execution/BaseModelRuns.h"
#include "analysis/results/MetricsTable.h"
#include "analysis/results/ResultsFile.h"
#include "analysis/results/RunSummary.h"
#include "io/OutputFile.h"
#include "spectral/AlphaInterval.h"

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSet>
#include <QSettings>
#include <QShortcut>
#include <QSlider>
#include <QSpinBox>
#include <QScreen>
#include <QStackedWidget>
#include <QStyle>
#include <QDockWidget>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QtConcurrent>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace rankscope {

namespace {
constexpr int kMaxRecent = 10;

QString runNameOf(const QString &path)
{
    const QFileInfo info(path);
    return info.isDir() ? info.fileName() : info.completeBaseName();
}
// A folder of runs (seed0/, seed1/, …) holds no checkpoints of its own: offer to open its runs
// side by side, once per folder (a watched folder is analysed again on every change).
void offerRunsAsComparison(MainWindow *window, const QString &folder, const QStringList &runs)
{
    static QSet<QString> offered;
    if (offered.contains(folder))
        return;
    offered.insert(folder);
    QStringList names;
    for (const QString &run : runs)
        names << QDir(folder).relativeFilePath(run);
    auto *box = new QMessageBox(QMessageBox::Question, MainWindow::tr("A folder of runs"),
                                MainWindow::tr("%1 holds no checkpoints of its own but %n run(s): %2.\nOpen them as a comparison?", nullptr, int(runs.size()))
                                    .arg(QDir::toNativeSeparators(folder), names.join(QLatin1String(", "))),
                                QMessageBox::Open | QMessageBox::Cancel, window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(box, &QMessageBox::finished, window, [window, runs](int answer) {
        if (answer != QMessageBox::Open)
            return;
        window->openPath(runs.first());
        for (const QString &run : runs.mid(1))
            window->addComparedRun(run);
    });
    box->open();
}

// What a folder without checkpoints holds, named (a few) and counted: " It holds 3 files
// (README.txt, config.json, notes.md) and 1 folder (logs), none of them checkpoints."
QString folderContentsText(const QString &folder)
{
    constexpr int kNamed = 6;
    QStringList files, folders;
    const QFileInfoList entries = QDir(folder).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name | QDir::IgnoreCase);
    for (const QFileInfo &entry : entries)
        (entry.isDir() ? folders : files) << entry.fileName();
    if (files.isEmpty() && folders.isEmpty())
        return MainWindow::tr(" It is empty.");
    auto named = [](const QStringList &names, const QString &one, const QString &many) {
        if (names.isEmpty())
            return QString();
        QString list = names.mid(0, kNamed).join(QLatin1String(", "));
        if (names.size() > kNamed)
            list += MainWindow::tr(", …");
        return (names.size() == 1 ? one : many.arg(names.size())) + QStringLiteral(" (%1)").arg(list);
    };
    QStringList parts{named(files, MainWindow::tr("1 file"), MainWindow::tr("%1 files")),
                      named(folders, MainWindow::tr("1 folder"), MainWindow::tr("%1 folders"))};
    parts.removeAll(QString());
    return MainWindow::tr(" It holds %1, none of them a checkpoint.").arg(parts.join(MainWindow::tr(" and ")));
}

// Why there is nothing to draw (summary.empty()), in the words that say what to do next.
QString emptyRunMessage(const RunSummary &summary, const RunAnalysis &run, const QString &where)
{
    switch (summary.empty()) {
    case RunSummary::Empty::No:
        break;
    case RunSummary::Empty::StillBeingWritten:
        return MainWindow::tr("Waiting for %n checkpoint(s) in %1 still being written: each is read once it has not changed for a few seconds.",
                              nullptr, int(summary.stillBeingWritten())).arg(where);
    case RunSummary::Empty::NothingReadable:
        return MainWindow::tr("Nothing in %1 could be analysed: %n file(s) or tensor(s) could not be read as checkpoints.\n\n"
                              "The list of what was skipped and why is under the ⚠ button in the status bar.", nullptr, int(summary.notAnalysed())).arg(where);
    case RunSummary::Empty::OnlyRuns:
        return MainWindow::tr("%1 holds no checkpoints of its own, but %n run(s) in its subfolders.", nullptr, int(run.runs.size())).arg(where);
    case RunSummary::Empty::NoCheckpoints:
        return MainWindow::tr("No checkpoints in %1.%2\n\nRankScope reads PyTorch (.pt, .bin), safetensors, HDF5 and NumPy checkpoints; "
                              "File ▸ Open folder… opens another folder, and new checkpoints written here appear as they arrive.")
            .arg(where, folderContentsText(run.folder));
    case RunSummary::Empty::Cancelled:
        return MainWindow::tr("The analysis of %1 was cancelled before its first checkpoint was done.").arg(where);
    case RunSummary::Empty::NoMatrices:
        return MainWindow::tr("No attention or MLP matrices were found in %1.").arg(where);
    }
    return {};
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_state(new ViewState(this)), m_controller(new AnalysisController(this)),
      m_theme(new WindowTheme(m_state, this)), m_tabs(new QTabWidget(this))
{
    setWindowTitle(tr("RankScope"));
    setAcceptDrops(true);
    buildFigureArea();
    buildMenus();
    buildControls();
    buildStepBar();
    buildStatusBar();
    buildCentre();
    connectToState();
    buildRunsDock();
    connectToController();
    // The run's logs looked at again every two seconds: a curve grows as training writes it.
    m_logTimer = new QTimer(this);
    m_logTimer->setInterval(2000);
    connect(m_logTimer, &QTimer::timeout, this, &MainWindow::followTrainingLogs);
    m_logTimer->start();
    restoreSettings();
}

void MainWindow::buildFigureArea()
{
    // A tab per figure of the catalog that has one; compared runs get a panel each in the bars and
    // heatmaps.
    for (FigureKind kind : allFigures())
        if (kind.info().tabTitle)
            m_tabs->addTab(m_figures.emplace_back(new FigureView(m_state, kind, this)), tr(kind.info().tabTitle));
    // Empty axes titled "… — empty" tell nothing: until there is something to draw, the area says why.
    m_central = new QStackedWidget(this);
    m_central->addWidget(m_tabs);
    m_message = new QLabel(this);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setMargin(40);
    m_central->addWidget(m_message);
}

void MainWindow::buildCentre()
{
    // The demo's banner above the figures (hidden until the demo is opened).
    auto *centre = new QWidget(this);
    auto *centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    m_demoBanner = new DemoBanner(m_recentMenu, centre);
    m_demoBanner->setVisible(false);
    connect(m_demoBanner, &DemoBanner::openFolderRequested, this, [this] { findChild<QAction *>(QStringLiteral("openFolder"))->trigger(); });
    connect(m_demoBanner, &DemoBanner::openResultsRequested, this, [this] { findChild<QAction *>(QStringLiteral("openResults"))->trigger(); });
    centreLayout->addWidget(m_demoBanner);
    centreLayout->addWidget(m_central, 1);
    setCentralWidget(centre);
    new SpinBoxKeyForwarder(this); // ←/→, Space and Ctrl+E reach the window from a focused spin box
    m_tabs->setFocus(); // not the first spin box, which would take the arrow keys' text editing
}

void MainWindow::connectToState()
{
    connect(m_state, &ViewState::spectrumRequested, this, [this] { m_tabs->setCurrentWidget(figure(FigureKind::Spectrum)); });
    connect(m_state, &ViewState::resultsChanged, this, [this] {
        syncStepControls();
        syncLayerControls();
        syncRunsDock();
        syncControlsToTab();
        if (!m_state->run().results.isEmpty())
            showFiguresOr({});
    });
    connect(m_state, &ViewState::displayChanged, this, &MainWindow::syncLayerControls);
    connect(m_state, &ViewState::displayChanged, this, &MainWindow::syncRunsDock); // a run hidden, renamed or removed
    connect(m_state, &ViewState::displayChanged, this, &MainWindow::syncControlsToTab);
    connect(m_state, &ViewState::currentStepChanged, this, &MainWindow::syncStepControls);
}

void MainWindow::buildRunsDock()
{
    auto *runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runs"));
    m_runList = new RunListPanel(m_state, runsDock);
    runsDock->setWidget(m_runList);
    addDockWidget(Qt::LeftDockWidgetArea, runsDock);
    runsDock->setVisible(false); // shown once a second run is added
    connect(m_runList, &RunListPanel::addRequested, this, &MainWindow::chooseRunToCompare);
    m_runsDock = runsDock;
}

void MainWindow::connectToController()
{
    connect(m_controller, &AnalysisController::started, this, [this](const QString &source) {
        m_source = source;
        m_state->resetLayerRanges(); // every layer of the new run, in every view
        m_state->clearComparedRuns(); // a new run starts a new comparison
        m_state->setRun(RunAnalysis{}, runNameOf(source));
        readTrainingLogs(source);
        clearLayerControls();
        setWindowTitle(tr("%1 — RankScope").arg(runNameOf(source)));
        m_status->setText(tr("Opening %1…").arg(QDir::toNativeSeparators(source)));
        m_progress->setRange(0, 0);
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
        m_issuesButton->setVisible(false);
        showFiguresOr(tr("Opening %1…").arg(QDir::toNativeSeparators(source)));
    });
    connect(m_controller, &AnalysisController::checkpointArrived, m_state, &ViewState::addResults);
    connect(m_controller, &AnalysisController::progressed, this, &MainWindow::onProgress);
    connect(m_controller, &AnalysisController::finished, this, &MainWindow::onFinished);
    connect(m_controller, &AnalysisController::comparisonReady, this, &MainWindow::onComparisonReady);
    connect(m_controller, &AnalysisController::baseRunsReady, this, &MainWindow::onBaseRunsReady);
    connect(m_controller, &AnalysisController::updated, this, [this](const RunAnalysis &run, const QStringList &arrived) {
        onFinished(run);
        QStringList names;
        for (const QString &path : arrived)
            names << QFileInfo(path).fileName();
        if (!names.isEmpty())
            m_status->setText(tr("%1 arrived — %2").arg(names.join(QLatin1String(", ")), m_status->text()));
    });
    connect(m_controller, &AnalysisController::problem, this, [this](const QString &message) {
        if (!m_controller->isRunning()) {
            m_progress->setVisible(false);
            m_cancel->setVisible(false);
        }
        m_status->setText(message);
        statusBar()->showMessage(message, 10000);
    });
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    buildFileMenu();
    buildViewMenu();
    buildAnalysisMenu();
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), this, [this] { showShortcuts(this); });
    help->addAction(tr("&Metric definitions"), this, [this] { showMetricDefinitions(this); });
    help->addSeparator();
    help->addAction(tr("&About RankScope"), this, [this] { showAboutRankScope(this); });
}

void MainWindow::buildFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *openFolder = file->addAction(tr("&Open folder…"), this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Open a folder of checkpoints"),
                                                                 m_recent.isEmpty() ? QDir::homePath() : QFileInfo(m_recent.first()).absolutePath());
        if (!folder.isEmpty())
            openPath(folder);
    });
    openFolder->setShortcut(QKeySequence::Open);
    openFolder->setObjectName(QStringLiteral("openFolder"));
    QAction *openResults = file->addAction(tr("Open &results file…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a RankScope results file"), QString(), tr("RankScope results (*.h5 *.hdf5)"));
        if (!path.isEmpty())
            openPath(path);
    });
    openResults->setObjectName(QStringLiteral("openResults"));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Add run to &compare…"), this, &MainWindow::chooseRunToCompare);
    file->addAction(tr("Add &base model of this adapter run…"), this, &MainWindow::chooseBaseModel);
    file->addAction(tr("Add results file to compare…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Add a RankScope results file to compare"), QString(), tr("RankScope results (*.h5 *.hdf5)"));
        if (!path.isEmpty())
            addComparedRun(path);
    });
    file->addAction(tr("Load naming &rules…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Naming rules (see docs/naming-rules.md)"), QString(), tr("JSON (*.json)"));
        if (!path.isEmpty())
            loadNamingRules(path);
    });
    file->addSeparator();
    addExportActions(file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

// File ▸ Export figure, Export all figures, Export view data, Export metrics table.
void MainWindow::addExportActions(QMenu *file)
{
    QAction *exportAction = file->addAction(tr("&Export figure…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
        const int tab = m_tabs->currentIndex();
        const QString suggested = QDir(exportFolder()).filePath(QStringLiteral("%1-%2.png").arg(m_state->runName(), tabFileName(tab)));
        ExportDialog dialog(suggested, m_tabs->currentWidget()->size(), m_state->legendPosition(), this);
        if (dialog.exec() != QDialog::Accepted)
            return;
        m_state->setLegendPosition(dialog.legendPosition()); // the window shows what was exported
        QString error;
        if (!exportFigure(tab, dialog.path(), dialog.size(), &error, dialog.title())) {
            QMessageBox::warning(this, tr("Export figure"), error);
            return;
        }
        rememberExportFolder(QFileInfo(dialog.path()).absolutePath());
        statusBar()->showMessage(tr("Wrote %1").arg(QDir::toNativeSeparators(dialog.path())), 8000);
    });
    exportAction->setObjectName(QStringLiteral("exportFigure"));
    // "Export this view…" in a figure's context menu: the same dialog, for the tab it is on.
    for (FigureView *figureView : m_figures)
        connect(figureView, &FigureView::exportRequested, exportAction, &QAction::trigger);
    file->addAction(tr("Export &all figures…"), this, [this] {
        // The same choices as one figure's export (a paper preset, a size, the format), for every figure.
        ExportDialog dialog(exportFolder(), m_tabs->currentWidget()->size(), m_state->legendPosition(), this, ExportDialog::Target::Folder);
        if (dialog.exec() != QDialog::Accepted || dialog.path().isEmpty())
            return;
        const QString folder = dialog.path();
        rememberExportFolder(folder);
        m_state->setLegendPosition(dialog.legendPosition());
        QString error;
        const QStringList written = exportAllFigures(folder, dialog.format(), dialog.size(), &error);
        if (!error.isEmpty())
            QMessageBox::warning(this, tr("Export all figures"), error);
        statusBar()->showMessage(tr("Wrote %1 figures into %2").arg(written.size()).arg(QDir::toNativeSeparators(folder)), 8000);
    });
    file->addAction(tr("Export view &data (CSV)…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the data behind this view"), QString(), tr("CSV (*.csv)"));
        const auto *figure = qobject_cast<const FigureView *>(m_tabs->currentWidget());
        if (path.isEmpty() || !figure)
            return;
        QString error;
        if (!writeOutputFile(path, figure->dataCsv().toUtf8(), &error)) // its panels as one table
            QMessageBox::warning(this, tr("Export view data"), error);
    });
    file->addAction(tr("Export &metrics table (CSV)…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export every metric of every matrix"), QString(), tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        QBuffer table;
        table.open(QIODevice::WriteOnly);
        MetricsTable::writeCsv(m_state->results() + m_state->headResults(), table);
        QString error;
        if (!writeOutputFile(path, table.data(), &error))
            QMessageBox::warning(this, tr("Export metrics table"), error);
    });
}

void MainWindow::buildViewMenu()
{
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Skipped files and tensors…"), this, &MainWindow::showIssues);
    view->addAction(tr("&Previous step"), QKeySequence(Qt::Key_Left), this, [this] { m_state->stepBy(-1); });
    view->addAction(tr("&Next step"), QKeySequence(Qt::Key_Right), this, [this] { m_state->stepBy(1); });
    // The Play button's action: Space plays and pauses wherever the focus is.
    m_playAction = view->addAction(tr("Play"));
    m_playAction->setObjectName(QStringLiteral("play"));
    m_playAction->setCheckable(true);
    m_playAction->setShortcut(QKeySequence(Qt::Key_Space));
    m_playAction->setToolTip(tr("Step through the checkpoints (Space)"));
    // Checkable, so the menu shows the check mark of the tab's own log axis (the tool bar's box).
    m_logYAction = view->addAction(tr("&Log y"));
    m_logYAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_logYAction->setCheckable(true);
    addLegendMenu(view, m_state);
    m_theme->addMenu(view);
    view->addSeparator();
    for (int tab = 0; tab < m_tabs->count(); ++tab) {
        const FigureRow &row = tabKind(tab)->info();
        QWidget *widget = m_tabs->widget(tab);
        view->addAction(tr(row.menuTitle), QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + tab)), this, [this, widget] { m_tabs->setCurrentWidget(widget); });
    }
}

void MainWindow::buildAnalysisMenu()
{
    QMenu *analysis = menuBar()->addMenu(tr("&Analysis"));
    m_randDistance = analysis->addAction(tr("Also compute &rand_distance (a second decomposition of every matrix)"));
    m_randDistance->setCheckable(true);
    m_randDistance->setToolTip(tr("WeightWatcher's distance between each matrix's ESD and that of its entries shuffled (fixed seed)"));
    m_delta = analysis->addAction(tr("Also compute the &change from the first checkpoint (W \u2212 W\u2080, a second decomposition)"));
    m_delta->setCheckable(true);
    m_delta->setToolTip(tr("delta_* metrics of D = W \u2212 W\u2080 for every matrix, and D's spectrum in the Spectrum tab"));
    m_subspace = analysis->addAction(tr("Also compute the &subspace agreement with the previous checkpoint (top %1 singular vectors)").arg(kDefaultSubspaceK));
    m_subspace->setCheckable(true);
    m_subspace->setToolTip(tr("subspace_overlap and top_vector_cosine: how far each matrix's top right singular vectors turned since the checkpoint before"));
    m_alphaCi = analysis->addAction(tr("Also compute &alpha's 95 % bootstrap interval (%1 resamples of the fitted tail)").arg(kAlphaCiResamples));
    m_alphaCi->setCheckable(true);
    m_alphaCi->setToolTip(tr("alpha_ci_low and alpha_ci_high, drawn as error bars on α's lines; from the stored spectra, no checkpoint read again"));
    m_heads = analysis->addAction(tr("Also compute &per-head spectra and QK/OV circuits"));
    m_heads->setCheckable(true);
    m_heads->setToolTip(tr("Every attention head of Q, K, V and O, and each head's QK and OV circuit, in the Heads tab"));
    // The spectra on the GPU (as analyze --device auto): on when one is usable, said why not when none is.
    analysis->addSeparator();
    QString noGpu;
    const QString gpu = AnalysisController::gpuDescription(&noGpu);
    QAction *useGpu = analysis->addAction(tr("Compute the spectra on the &GPU"));
    useGpu->setCheckable(true);
    useGpu->setChecked(!gpu.isEmpty());
    useGpu->setEnabled(!gpu.isEmpty());
    useGpu->setToolTip(gpu.isEmpty() ? noGpu : gpu);
    useGpu->setStatusTip(useGpu->toolTip());
    connect(useGpu, &QAction::toggled, this, [this](bool on) { m_controller->setUseGpu(on); });
    for (QAction *action : {m_randDistance, m_delta, m_subspace, m_alphaCi, m_heads})
        connect(action, &QAction::toggled, this, [this, action](bool on) {
            if (action == m_randDistance)
                m_controller->setRandDistance(on);
            else if (action == m_delta)
                m_controller->setDelta(on);
            else if (action == m_alphaCi)
                m_controller->setAlphaCi(on);
            else if (action == m_heads)
                m_controller->setHeads(on);
            else
                m_controller->setSubspace(on);
            // The open folder is opened again: its cached results get the metric computed, nothing else.
            // Turned off, the controller leaves it out of the open run at once (its results file keeps it).
            if (on && QFileInfo(m_source).isDir())
                openPath(m_source);
        });
}

void MainWindow::buildControls()
{
    buildFilterBar();
    buildDisplayBar();
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::syncControlsToTab);
    connect(figure(FigureKind::Heads)->view<HeadView>(), &HeadView::modeChanged, this, &MainWindow::syncControlsToTab);
    connect(lineChart(), &MetricLineChart::perLayerTypeChanged, this, &MainWindow::syncControlsToTab);
    syncControlsToTab();
}

void MainWindow::buildFilterBar()
{
    QToolBar *bar = addToolBar(tr("Filters"));
    bar->setObjectName(QStringLiteral("filters"));
    bar->setMovable(false);
    bar->addWidget(new QLabel(tr(" Types "), this));
    m_typeChips = new TypeFilterChips(m_state, this);
    m_typeChips->setObjectName(QStringLiteral("typeChips"));
    bar->addWidget(m_typeChips);
    bar->addWidget(new BlockExpertSelector(m_state, this));
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Layers "), this));
    m_firstLayer = new QSpinBox(this);
    m_lastLayer = new QSpinBox(this);
    bar->addWidget(m_firstLayer);
    bar->addWidget(new QLabel(QStringLiteral("–"), this));
    bar->addWidget(m_lastLayer);
    // The whole range (both boxes at their ends) means every layer, of runs that grow too.
    auto applyLayers = [this] {
        const bool all = m_firstLayer->value() == m_firstLayer->minimum() && m_lastLayer->value() == m_lastLayer->maximum();
        m_state->setLayerRange(layerViewOfTab(), all ? LayerRange{}
                                                     : LayerRange{std::min(m_firstLayer->value(), m_lastLayer->value()), std::max(m_firstLayer->value(), m_lastLayer->value())});
    };
    connect(m_firstLayer, &QSpinBox::valueChanged, this, applyLayers);
    connect(m_lastLayer, &QSpinBox::valueChanged, this, applyLayers);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Energy τ "), this));
    m_energy = new QDoubleSpinBox(this);
    m_energy->setRange(0.50, 0.999);
    m_energy->setDecimals(3);
    m_energy->setSingleStep(0.01);
    m_energy->setValue(kDefaultEnergy);
    m_energy->setToolTip(tr("The share of the energy Σσ² kept for compression %, energy rank and parameter saving"));
    connect(m_energy, &QDoubleSpinBox::valueChanged, m_state, &ViewState::setEnergy);
    bar->addWidget(m_energy);
}

void MainWindow::buildDisplayBar()
{
    // The display options on a row of their own: one row cut them off behind the overflow at 1024 px.
    addToolBarBreak();
    QToolBar *bar = addToolBar(tr("Display"));
    bar->setObjectName(QStringLiteral("display"));
    bar->setMovable(false);
    m_aggregate = new QComboBox(this);
    m_aggregate->setObjectName(QStringLiteral("aggregate"));
    m_aggregate->addItem(tr("Mean over layers"), int(Aggregate::Mean));
    m_aggregate->addItem(tr("Median over layers"), int(Aggregate::Median));
    connect(m_aggregate, &QComboBox::activated, this, [this] { m_state->setAggregate(Aggregate(m_aggregate->currentData().toInt())); });
    bar->addWidget(m_aggregate);
    m_band = new QCheckBox(tr("Min–max band"), this);
    m_band->setObjectName(QStringLiteral("band"));
    m_band->setChecked(true);
    connect(m_band, &QCheckBox::toggled, m_state, &ViewState::setShowBand);
    bar->addWidget(m_band);
    m_logY = new QCheckBox(tr("Log y"), this);
    m_logY->setToolTip(tr("A logarithmic value axis for the tab shown: the line chart and the per-layer bars each have their own"));
    connect(m_logY, &QCheckBox::toggled, this, [this](bool on) {
        if (tabKind(m_tabs->currentIndex()) == FigureKind::Bars)
            m_state->setLogYBars(on);
        else
            m_state->setLogY(on);
        m_logYAction->setChecked(on);
    });
    connect(m_logYAction, &QAction::toggled, m_logY, &QCheckBox::setChecked);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::syncLogYControls);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::syncLayerControls); // each tab's own layer range
    syncLogYControls();
    bar->addWidget(m_logY);
    bar->addSeparator();
    m_relativeDepth = new QCheckBox(tr("Relative depth"), this);
    m_relativeDepth->setObjectName(QStringLiteral("relativeDepth"));
    m_relativeDepth->setToolTip(tr("Layers as layer / (depth − 1), to compare models of different depth"));
    connect(m_relativeDepth, &QCheckBox::toggled, m_state, &ViewState::setRelativeDepth);
    bar->addWidget(m_relativeDepth);
    m_relativeStep = new QCheckBox(tr("Step as fraction"), this);
    m_relativeStep->setObjectName(QStringLiteral("relativeStep"));
    m_relativeStep->setToolTip(tr("Steps as a fraction of each run's last step, to compare runs of different length"));
    connect(m_relativeStep, &QCheckBox::toggled, m_state, &ViewState::setRelativeStep);
    bar->addWidget(m_relativeStep);
}

void MainWindow::buildStepBar()
{
    QToolBar *bar = new QToolBar(tr("Step"), this);
    bar->setObjectName(QStringLiteral("step"));
    bar->setMovable(false);
    addToolBar(Qt::BottomToolBarArea, bar);
    m_play = new QToolButton(this);
    m_play->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_play->setDefaultAction(m_playAction);
    m_playAction->setIcon(WindowTheme::playIcon(false, QApplication::palette()));
    // As wide as "Pause" too, so the slider beside it stays put when one becomes the other.
    int playWidth = 0;
    for (const QString &text : {tr("Pause"), tr("Play")}) {
        m_playAction->setText(text);
        playWidth = std::max(playWidth, m_play->sizeHint().width());
    }
    m_play->setFixedWidth(playWidth);
    m_playTimer = new QTimer(this);
    m_playTimer->setInterval(700);
    connect(m_playAction, &QAction::toggled, this, [this](bool on) {
        m_playAction->setText(on ? tr("Pause") : tr("Play"));
        m_playAction->setIcon(WindowTheme::playIcon(on, QApplication::palette()));
        if (on && !m_state->steps().isEmpty() && m_state->currentStep() == m_state->steps().last())
            m_state->setCurrentStep(m_state->steps().first());
        on ? m_playTimer->start() : m_playTimer->stop();
    });
    // The application's palette: the window's own may not have taken the theme's yet.
    connect(m_state, &ViewState::themeChanged, m_play, [this] { m_playAction->setIcon(WindowTheme::playIcon(m_playAction->isChecked(), QApplication::palette())); });
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_state->steps().isEmpty() || m_state->currentStep() == m_state->steps().last())
            m_playAction->setChecked(false);
        else
            m_state->stepBy(1);
    });
    bar->addWidget(m_play);
    bar->addWidget(new QLabel(tr("  Step "), this));
    m_stepSlider = new QSlider(Qt::Horizontal, this);
    m_stepSlider->setTickPosition(QSlider::TicksBelow);
    m_stepSlider->setMinimumWidth(360);
    m_stepSlider->setFocusPolicy(Qt::NoFocus); // Left/Right belong to the window's step shortcuts
    connect(m_stepSlider, &QSlider::valueChanged, this, [this](int index) {
        const QList<qint64> steps = m_state->steps();
        if (index >= 0 && index < steps.size())
            m_state->setCurrentStep(steps[index]);
    });
    bar->addWidget(m_stepSlider);
    m_stepLabel = new QLabel(this);
    m_stepLabel->setMinimumWidth(200);
    bar->addWidget(m_stepLabel);
}

void MainWindow::buildStatusBar()
{
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("status"));
    statusBar()->addWidget(m_status, 1);
    m_issuesButton = new QToolButton(this);
    m_issuesButton->setAutoRaise(true);
    m_issuesButton->setVisible(false);
    connect(m_issuesButton, &QToolButton::clicked, this, &MainWindow::showIssues);
    statusBar()->addPermanentWidget(m_issuesButton);
    m_progress = new QProgressBar(this);
    // Wide enough for its text: "118/120 checkpoints" was clipped in a 260 px bar under some styles.
    m_progress->setMinimumWidth(m_progress->fontMetrics().horizontalAdvance(tr("0000/0000 checkpoints")) + 60);
    m_progress->setMaximumWidth(m_progress->minimumWidth() + 100);
    m_progress->setVisible(false);
    statusBar()->addPermanentWidget(m_progress);
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setVisible(false);
    connect(m_cancel, &QToolButton::clicked, m_controller, &AnalysisController::cancel);
    statusBar()->addPermanentWidget(m_cancel);
}

void MainWindow::syncStepControls()
{
    const QList<qint64> steps = m_state->steps();
    const QSignalBlocker block(m_stepSlider);
    m_stepSlider->setRange(0, std::max<qsizetype>(0, steps.size() - 1));
    const qsizetype index = steps.indexOf(m_state->currentStep());
    m_stepSlider->setValue(int(std::max<qsizetype>(0, index)));
    m_stepSlider->setEnabled(steps.size() > 1);
    if (steps.isEmpty())
        m_stepLabel->setText(tr("no checkpoints yet"));
    else if (index < 0) // the run is being read again, and the step shown is not back yet
        m_stepLabel->setText(tr("%1   (being read)").arg(m_state->currentStep()));
    else
        m_stepLabel->setText(tr("%1   (%2 of %3, last %4)").arg(m_state->currentStep()).arg(index + 1).arg(steps.size()).arg(steps.last()));
}

void MainWindow::syncLogYControls()
{
    // The box and the menu item show the tab's own log axis; the heatmaps and the spectrum have none of theirs.
    const std::optional<FigureKind> tab = tabKind(m_tabs->currentIndex());
    const bool on = tab == FigureKind::Bars ? m_state->logYBars() : m_state->logY();
    const QSignalBlocker box(m_logY), action(m_logYAction);
    m_logY->setChecked(on);
    m_logYAction->setChecked(on);
    const bool applies = tab == FigureKind::Lines || tab == FigureKind::Bars;
    m_logY->setEnabled(applies);
    m_logYAction->setEnabled(applies);
}

void MainWindow::clearLayerControls()
{
    // While a new run is opened its layers are not known yet: the boxes show none rather than the
    // previous run's range, and take the new run's when its first checkpoint is in.
    const QSignalBlocker a(m_firstLayer), b(m_lastLayer);
    for (QSpinBox *box : {m_firstLayer, m_lastLayer}) {
        box->setRange(0, 0);
        box->setEnabled(false);
    }
}

LayerView MainWindow::layerViewOfTab() const
{
    // The lines and the bars keep their own layer range; the other tabs share one.
    const std::optional<FigureKind> tab = tabKind(m_tabs->currentIndex());
    return tab == FigureKind::Lines ? LayerView::Lines : tab == FigureKind::Bars ? LayerView::Bars : LayerView::Shared;
}

void MainWindow::syncLayerControls()
{
    // The boxes show the state's range within the run's layers; the state is what every view follows.
    const QList<int> layers = m_state->layers();
    if (layers.isEmpty())
        return;
    const LayerRange range = m_state->layerRange(layerViewOfTab());
    const QSignalBlocker a(m_firstLayer), b(m_lastLayer);
    for (QSpinBox *box : {m_firstLayer, m_lastLayer}) {
        box->setRange(layers.first(), layers.last());
        box->setEnabled(true);
    }
    m_firstLayer->setValue(std::clamp(range.first, layers.first(), layers.last()));
    m_lastLayer->setValue(std::clamp(range.last, layers.first(), layers.last()));
}

void MainWindow::onProgress(const AnalysisProgress &p)
{
    m_progress->setRange(0, std::max(1, p.matricesTotal));
    m_progress->setValue(p.matricesDone);
    m_progress->setFormat(tr("%1/%2 checkpoints").arg(p.checkpointsDone).arg(p.checkpointsTotal));
    QString text = tr("Analysing %1").arg(QFileInfo(p.currentFile).fileName());
    if (p.etaSeconds >= 0)
        text += tr(" — about %1 s left").arg(std::ceil(p.etaSeconds));
    m_status->setText(text);
    if (m_state->run().results.isEmpty())
        showFiguresOr(tr("Analysing %1\n\n%2 of %3 checkpoints done; the figures appear with the first one.")
                          .arg(QDir::toNativeSeparators(m_source)).arg(p.checkpointsDone).arg(p.checkpointsTotal));
}

void MainWindow::showFiguresOr(const QString &message)
{
    m_message->setText(message);
    m_central->setCurrentWidget(message.isEmpty() ? static_cast<QWidget *>(m_tabs) : m_message);
}

void MainWindow::readTrainingLogs(const QString &source)
{
    // Read beside the analysis, never before it: a large event file does not delay the spectra.
    m_state->setScalarLog({});
    readTrainingLogsAgain(source, QString());
}

void MainWindow::readTrainingLogsAgain(const QString &source, const QString &knownStamp)
{
    m_readingLogs = true;
    readTrainingLogs(source, knownStamp, [this, source](const std::optional<ScalarLog> &log) {
        m_readingLogs = false;
        if (log && source == m_source) // not a run opened since
            m_state->setScalarLog(*log);
    });
}

void MainWindow::readTrainingLogs(const QString &source, const QString &knownStamp, std::function<void(const std::optional<ScalarLog> &)> done)
{
    // Listed off the window's thread and read again only when a file grew, changed or arrived (a
    // half-written last record is read once it is whole: the points before it are kept meanwhile).
    auto *watcher = new QFutureWatcher<std::optional<ScalarLog>>(this);
    connect(watcher, &QFutureWatcher<std::optional<ScalarLog>>::finished, this, [watcher, done = std::move(done)] {
        done(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([source, knownStamp]() -> std::optional<ScalarLog> {
        if (!QFileInfo(source).isDir())
            return ScalarLog();
        if (!knownStamp.isNull() && TrainingLogs::stamp(source) == knownStamp)
            return std::nullopt;
        return TrainingLogs::read(source);
    }));
}

void MainWindow::followTrainingLogs()
{
    // A run still training writes its logs as it goes, as it writes checkpoints: both are followed.
    if (m_readingLogs || m_source.isEmpty() || m_showingDemo || !QFileInfo(m_source).isDir())
        return; // a results file has no logs to follow
    readTrainingLogsAgain(m_source, m_state->scalarLog().sourceStamp());
}

QString MainWindow::centralMessage() const
{
    return m_central->currentWidget() == m_message ? m_message->text() : QString();
}

void MainWindow::onFinished(const RunAnalysis &run)
{
    m_state->setRun(run, runNameOf(m_source));
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    // Counted and judged as the command line counts and judges it (RunSummary).
    const RunSummary summary(run);
    QString text = runNameOf(m_source) + QStringLiteral(": ") + summary.countsText();
    if (summary.cancelled())
        text += tr(" — cancelled");
    if (summary.stillBeingWritten() > 0)
        text += tr("; waiting for %n checkpoint(s) still being written", nullptr, int(summary.stillBeingWritten()));
    else if (m_showingDemo)
        text += tr("; the bundled demo run");
    else if (QFileInfo(m_source).isDir() && !summary.cancelled())
        text += tr("; watching for new checkpoints");
    if (!summary.trajectoryFindings().isEmpty())
        text += tr("; ⚠ %n checkpoint(s) repeat another's weights or are out of line (see what was skipped or noted)", nullptr,
                   int(summary.trajectoryFindings().size()));
    m_status->setText(text);
    m_issuesButton->setText(summary.skippedText());
    m_issuesButton->setVisible(summary.skippedOrNoted() > 0);
    if (summary.matrices() == 0 && summary.notAnalysed() > 0)
        m_status->setText(tr("Nothing could be analysed in %1 — see what was skipped").arg(runNameOf(m_source)));
    if (summary.empty() != RunSummary::Empty::No)
        showFiguresOr(emptyRunMessage(summary, run, QDir::toNativeSeparators(m_source)));
    if (run.checkpoints.isEmpty() && !run.runs.isEmpty())
        offerRunsAsComparison(this, run.folder, run.runs);
    if (!m_baseOnceOpen.isEmpty() && !run.results.isEmpty())
        addBaseModel(std::exchange(m_baseOnceOpen, QString()));
}

void MainWindow::showIssues()
{
    showSkippedFiles(this, m_state->run(), m_state->runName());
}

QList<ChartView *> MainWindow::viewsOfTab(int tab) const
{
    QList<ChartView *> views;
    if (const auto *f = qobject_cast<const FigureView *>(m_tabs->widget(tab)))
        for (const QList<ChartView *> &row : f->panels())
            views << row;
    return views;
}

void MainWindow::syncRunsDock()
{
    // The Runs dock and the title belong to a comparison: they go with it, and so does the
    // status line's count of the runs compared.
    m_runsDock->setVisible(m_state->runCount() > 1);
    if (m_status->text().startsWith(tr("Comparing ")) || m_status->text().startsWith(tr("Comparison closed")))
        m_status->setText(m_state->runCount() > 1 ? tr("Comparing %1 runs").arg(m_state->runCount())
                                                  : tr("Comparison closed: %1 alone").arg(m_state->runName()));
    if (m_source.isEmpty())
        return;
    QStringList names;
    for (int run = 0; run < m_state->runCount(); ++run)
        names << m_state->runNameAt(run);
    setWindowTitle(tr("%1 — RankScope").arg(names.size() > 1 ? tr("%1 vs %2").arg(names.first(), names.mid(1).join(tr(", ")))
                                                           : runNameOf(m_source)));
}

void MainWindow::syncControlsToTab()
{
    // Each control is enabled on the tabs whose figure it changes; elsewhere it is greyed and
    // says why, so nothing seems to be ignored.
    const std::optional<FigureKind> tab = tabKind(m_tabs->currentIndex());
    const bool lines = tab == FigureKind::Lines, perLayer = tab == FigureKind::Bars || tab == FigureKind::Heatmaps;
    // The aggregate and the band are of lines over layers: not of one line per layer.
    const bool byLayer = lineChart()->perLayerType().has_value();
    m_aggregate->setEnabled(lines && !byLayer);
    m_relativeStep->setEnabled(lines || perLayer);
    m_relativeDepth->setEnabled(perLayer);
    // The chips choose the types of the lines, bars and heatmaps; the spectra, the heads (each of
    // their own type box) and the rank plan (every type planned) show what the chips do not choose.
    m_typeChips->setEnabled(lines || perLayer);
    // The layer range: not on one matrix's spectrum, the rank plan (every layer planned) nor the
    // heads' lines and spectrum (one layer, from the Heads tab's own box).
    const bool oneLayer = tab == FigureKind::Spectrum || (tab == FigureKind::Heads && figure(FigureKind::Heads)->view<HeadView>()->mode() != HeadView::Mode::Heatmap);
    m_firstLayer->setEnabled(!oneLayer && tab != FigureKind::RankPlan && !m_state->layers().isEmpty());
    m_lastLayer->setEnabled(m_firstLayer->isEnabled());
    // Several runs' bands would hide each other: the line chart draws none, and the box says so.
    const bool comparing = m_state->visibleRuns().size() > 1;
    const QSignalBlocker quiet(m_band);
    m_band->setEnabled(lines && !comparing && !byLayer);
    m_band->setChecked(m_state->showBand() && !comparing);
    m_band->setToolTip(comparing ? tr("No band while runs are compared: several runs' bands would hide each other")
                                 : tr("The spread of the layers around each line, from their smallest to their largest value"));
}

QString MainWindow::exportFolder() const
{
    const QString last = QSettings().value(QStringLiteral("export/folder")).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir())
        return last;
    return m_recent.isEmpty() || m_showingDemo ? QDir::homePath() : QFileInfo(m_recent.first()).absolutePath();
}

void MainWindow::rememberExportFolder(const QString &folder)
{
    QSettings().setValue(QStringLiteral("export/folder"), QFileInfo(folder).absoluteFilePath());
}

void MainWindow::chooseRunToCompare()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Add a run to compare"));
    if (!folder.isEmpty())
        addComparedRun(folder);
}

void MainWindow::addComparedRun(const QString &path)
{
    m_status->setText(tr("Analysing %1 to compare…").arg(runNameOf(path)));
    m_controller->openForComparison(path);
}

void MainWindow::chooseBaseModel()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("The base model this LoRA adapter run was trained on"));
    if (!folder.isEmpty())
        addBaseModel(folder);
}

void MainWindow::addBaseModel(const QString &base)
{
    const QList<MatrixResult> &rows = m_state->results();
    if (!QFileInfo(m_source).isDir()) {
        m_status->setText(tr("%1 is a results file: a base model is merged with the adapter factors of the run's folder; open that folder")
                              .arg(runNameOf(m_source)));
        return;
    }
    if (!std::any_of(rows.begin(), rows.end(), [](const MatrixResult &r) { return r.weights == QLatin1String("update"); })) {
        m_status->setText(tr("%1 is not a LoRA adapter run: a base model is merged with an adapter's updates").arg(m_state->runName()));
        return;
    }
    m_status->setText(tr("Merging %1's updates into %2…").arg(m_state->runName(), runNameOf(base)));
    m_controller->openBaseModel(base, m_state->run());
}

void MainWindow::onBaseRunsReady(const RunAnalysis &merged, const RunAnalysis &base, const QString &basePath)
{
    // The merged weights W₀ + ΔW and the base's own W₀ of the adapted matrices, compared with the updates.
    const RunAnalysis own = BaseModelRuns::adaptedOnly(base, m_state->run());
    if (!merged.results.isEmpty())
        m_state->addComparedRun(merged, tr("%1 \u00b7 merged").arg(m_state->runName()));
    if (!own.results.isEmpty())
        m_state->addComparedRun(own, tr("%1 \u00b7 base").arg(runNameOf(basePath)));
    // What was not merged is said, the first of it in the status line (all of it: rankscope analyze --base).
    const QStringList said = merged.issueLines() + base.issueLines();
    const QString first = said.isEmpty() ? QString() : QStringLiteral(" — ") + said.first() + (said.size() > 1 ? tr(" (and %1 more)").arg(said.size() - 1) : QString());
    m_status->setText(merged.results.isEmpty() && own.results.isEmpty() ? tr("Nothing merged with %1%2").arg(runNameOf(basePath), first)
                                                                        : tr("Comparing the updates with their merged weights and the base %1%2").arg(runNameOf(basePath), first));
}

void MainWindow::onComparisonReady(const RunAnalysis &run, const QString &path)
{
    if (run.results.isEmpty()) {
        const QStringList issues = run.issueLines();
        m_status->setText(tr("%1: nothing to compare%2").arg(QDir::toNativeSeparators(path),
                                                              issues.isEmpty() ? tr(" (see rankscope info)") : QStringLiteral(" — ") + issues.first()));
        return;
    }
    m_state->addComparedRun(run, runNameOf(path));
    m_status->setText(tr("Comparing %1 runs").arg(m_state->runCount()));
    // Its training logs too, for its curve beside the first run's: read in the background and
    // given to the run (found again by its folder: runs may be removed meanwhile).
    readTrainingLogs(path, QString(), [this, folder = run.folder](const std::optional<ScalarLog> &log) {
        for (int index = 1; index < m_state->runCount(); ++index)
            if (m_state->runAt(index).folder == folder)
                m_state->setScalarLogAt(index, log.value_or(ScalarLog()));
    });
}

std::optional<FigureKind> MainWindow::tabKind(int tab) const
{
    if (const auto *f = qobject_cast<const FigureView *>(m_tabs->widget(tab)))
        return f->kind();
    return std::nullopt;
}

MetricLineChart *MainWindow::lineChart() const { return figure(FigureKind::Lines)->view<MetricLineChart>(); }
LayerBarChart *MainWindow::barChart() const { return figure(FigureKind::Bars)->view<LayerBarChart>(); }
TypeLayerHeatmap *MainWindow::heatmap(int i) const { return figure(FigureKind::Heatmaps)->viewsOf<TypeLayerHeatmap>().value(i); }
SpectrumView *MainWindow::spectrumView() const { return figure(FigureKind::Spectrum)->view<SpectrumView>(); }
RankPlanPanel *MainWindow::rankPlanPanel() const { return figure(FigureKind::RankPlan)->findChild<RankPlanPanel *>(); }
QList<LayerBarChart *> MainWindow::comparedBarPanels() const { return figure(FigureKind::Bars)->viewsOf<LayerBarChart>().mid(1); }

QString MainWindow::tabFileName(int tab) const
{
    return FigureView::name(*tabKind(tab)); // export's --figure NAME
}

bool MainWindow::exportFigure(int tab, const QString &path, const FigureSize &size, QString *error, const QString &ownTitle)
{
    const std::optional<QString> title = ownTitle.isEmpty() ? std::nullopt : std::optional(ownTitle);
    auto *f = qobject_cast<FigureView *>(m_tabs->widget(tab));
    if (!f) {
        *error = tr("no figure %1").arg(tab);
        return false;
    }
    return f->exportTo(path, size, error, title);
}

QStringList MainWindow::exportAllFigures(const QString &folder, const QString &format, const FigureSize &size, QString *error)
{
    // Every tab's figure, the Rank plan's too, each as the tab shows it; a figure with nothing
    // computed to draw (no matrix chosen, no per-head spectra) is left out, not written as a message.
    // A comparison's files are named after every run in it.
    QStringList names;
    for (int run : m_state->visibleRuns())
        names << m_state->runNameAt(run);
    const QString stem = names.isEmpty() ? m_state->runName() : names.join(QStringLiteral("-vs-"));
    QStringList written;
    for (int tab = 0; tab < m_tabs->count(); ++tab) {
        const auto *figure = qobject_cast<const FigureView *>(m_tabs->widget(tab));
        if (!figure || !figure->figurePanels()->exportProblem().isEmpty())
            continue;
        const QList<ChartView *> views = viewsOfTab(tab);
        if (std::all_of(views.begin(), views.end(), [](const ChartView *v) { return !v->noDataMessage().isEmpty(); }))
            continue;
        const QString path = QDir(folder).filePath(QStringLiteral("%1-%2.%3").arg(stem, tabFileName(tab), format));
        QString problem;
        if (exportFigure(tab, path, size, &problem))
            written << path;
        else
            *error += problem + QLatin1Char('\n');
    }
    return written;
}

bool MainWindow::loadNamingRules(const QString &path)
{
    QString error;
    const std::optional<TensorNameRules> rules = TensorNameRules::withUserRules(path, &error);
    if (!rules) {
        QMessageBox::warning(this, tr("Naming rules"), error);
        return false;
    }
    m_controller->setNameRules(*rules);
    statusBar()->showMessage(tr("Naming rules from %1 apply before the built-in ones").arg(QFileInfo(path).fileName()), 8000);
    // The settings key names the rules, so the run is analysed again under them (its cache stays valid for the old ones).
    if (!m_source.isEmpty() && QFileInfo(m_source).isDir())
        openPath(m_source);
    return true;
}

void MainWindow::openPath(const QString &path)
{
    m_baseOnceOpen.clear(); // asked for the run opened before this one
    const QFileInfo info(path);
    if (!info.exists()) {
        m_status->setText(tr("%1 does not exist").arg(QDir::toNativeSeparators(path)));
        setWindowTitle(tr("RankScope"));
        showFiguresOr(tr("%1 does not exist.\n\nFile ▸ Open folder… opens a folder of checkpoints, or drop one on this window.")
                          .arg(QDir::toNativeSeparators(info.absoluteFilePath())));
        return;
    }
    // The bundled demo is said to be one, offers the user's own runs, and is read once: it never grows.
    m_showingDemo = info.isDir() && info.canonicalFilePath() == QFileInfo(demoRunFolder()).canonicalFilePath();
    m_demoBanner->setVisible(m_showingDemo);
    if (!m_showingDemo)
        addRecent(info.absoluteFilePath());
    if (m_showingDemo)
        m_controller->openFolderOnce(info.absoluteFilePath());
    else if (info.isDir())
        m_controller->openFolder(info.absoluteFilePath());
    else
        m_controller->openResultsFile(info.absoluteFilePath());
}

void MainWindow::addRecent(const QString &path)
{
    m_recent.removeAll(path);
    m_recent.prepend(path);
    while (m_recent.size() > kMaxRecent)
        m_recent.removeLast();
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString &path : m_recent)
        m_recentMenu->addAction(QDir::toNativeSeparators(path), this, [this, path] { openPath(path); });
    m_recentMenu->setEnabled(!m_recent.isEmpty());
    if (m_demoBanner)
        m_demoBanner->syncRecent();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    if (openDropped(event->mimeData()->urls()))
        event->acceptProposedAction();
}

bool MainWindow::openDropped(const QList<QUrl> &urls)
{
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return false;
    QString path = urls.first().toLocalFile();
    // A dropped checkpoint means its folder; a dropped results file opens as itself.
    if (QFileInfo(path).isFile() && !ResultsFile::isResultsFile(path))
        path = QFileInfo(path).absolutePath();
    openPath(path);
    return true;
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(QSize(1500, 920).boundedTo(screen()->availableGeometry().size() * 0.95));
    m_recent = settings.value(QStringLiteral("recent")).toStringList();
    m_theme->restore();
    if (const auto legend = parseLegendPosition(settings.value(QStringLiteral("legend")).toString()))
        m_state->setLegendPosition(*legend);
    rebuildRecentMenu();
    if (const auto metric = metricFromColumn(settings.value(QStringLiteral("lines/metric")).toString()))
        figure(FigureKind::Lines)->setMetrics({*metric});
    if (const auto metric = metricFromColumn(settings.value(QStringLiteral("bars/metric")).toString()))
        figure(FigureKind::Bars)->setMetrics({*metric});
    m_energy->setValue(settings.value(QStringLiteral("energy"), kDefaultEnergy).toDouble());
    m_randDistance->setChecked(settings.value(QStringLiteral("analysis/randDistance"), false).toBool());
    m_delta->setChecked(settings.value(QStringLiteral("analysis/delta"), false).toBool());
    m_subspace->setChecked(settings.value(QStringLiteral("analysis/subspace"), false).toBool());
    m_alphaCi->setChecked(settings.value(QStringLiteral("analysis/alphaCi"), false).toBool());
    m_heads->setChecked(settings.value(QStringLiteral("analysis/heads"), false).toBool());
    const int aggregate = settings.value(QStringLiteral("aggregate"), int(Aggregate::Mean)).toInt();
    m_aggregate->setCurrentIndex(std::max(0, m_aggregate->findData(aggregate)));
    m_state->setAggregate(Aggregate(aggregate));
    m_band->setChecked(settings.value(QStringLiteral("band"), true).toBool());
    m_state->setLogY(settings.value(QStringLiteral("lines/logY"), false).toBool());
    m_state->setLogYBars(settings.value(QStringLiteral("bars/logY"), false).toBool());
    syncLogYControls();
    for (const QString &name : settings.value(QStringLiteral("hiddenTypes")).toStringList())
        if (const auto type = matrixTypeFromCsvName(name))
            m_state->setTypeVisible(*type, false);
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("recent"), m_recent);
    settings.setValue(QStringLiteral("lines/metric"), QString::fromLatin1(figure(FigureKind::Lines)->metrics().first().info().column));
    settings.setValue(QStringLiteral("bars/metric"), QString::fromLatin1(figure(FigureKind::Bars)->metrics().first().info().column));
    settings.setValue(QStringLiteral("energy"), m_state->energy());
    settings.setValue(QStringLiteral("analysis/randDistance"), m_randDistance->isChecked());
    settings.setValue(QStringLiteral("analysis/delta"), m_delta->isChecked());
    settings.setValue(QStringLiteral("analysis/subspace"), m_subspace->isChecked());
    settings.setValue(QStringLiteral("analysis/alphaCi"), m_alphaCi->isChecked());
    settings.setValue(QStringLiteral("analysis/heads"), m_heads->isChecked());
    settings.setValue(QStringLiteral("aggregate"), int(m_state->aggregate()));
    settings.setValue(QStringLiteral("band"), m_state->showBand());
    settings.setValue(QStringLiteral("lines/logY"), m_state->logY());
    settings.setValue(QStringLiteral("bars/logY"), m_state->logYBars());
    settings.setValue(QStringLiteral("legend"), legendPositionName(m_state->legendPosition()));
    QStringList hidden;
    for (MatrixType type : kAllMatrixTypes)
        if (!m_state->isTypeVisible(type))
            hidden << csvName(type);
    settings.setValue(QStringLiteral("hiddenTypes"), hidden);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    m_controller->cancel();
    QMainWindow::closeEvent(event);
}

} // namespace rankscope
