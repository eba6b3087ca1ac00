// The RankScope window: the run's four views in tabs, the filters and step controls every view
// follows, the analysis progress with cancel, and opening runs by menu, recent list or drop.
#pragma once

#include "AnalysisController.h"
#include "figures/FigureSize.h"
#include "FigureView.h"

#include <QMainWindow>
#include <functional>
#include <optional>

class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QSlider;
class QSpinBox;
class QTabWidget;
class QStackedWidget;
class QTimer;
class QToolButton;
class QCheckBox;
class QDockWidget;
class QGridLayout;
class QHBoxLayout;
class QComboBox;

namespace rankscope {

class WindowTheme;
class DemoBanner;

class ChartView;
class LayerBarChart;
class MetricLineChart;
class RankPlanPanel;
class RunListPanel;
class SpectrumView;
class TypeFilterChips;
class TypeLayerHeatmap;
class ViewState;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // A checkpoint folder or a results file.
    void openPath(const QString &path);
    // What dropping these on the window does: a folder or results file opens, a checkpoint opens its folder.
    bool openDropped(const QList<QUrl> &urls);

    ViewState *state() const { return m_state; }
    AnalysisController *controller() const { return m_controller; }
    // Analysis ▸ rand_distance: checked, every matrix is also decomposed with its entries shuffled.
    QAction *randDistanceAction() const { return m_randDistance; }
    // Analysis ▸ change from the first checkpoint (--delta).
    QAction *deltaAction() const { return m_delta; }
    QAction *logYAction() const { return m_logYAction; }
    QCheckBox *logYBox() const { return m_logY; }
    QSpinBox *firstLayerBox() const { return m_firstLayer; }
    QSpinBox *lastLayerBox() const { return m_lastLayer; }
    QAction *subspaceAction() const { return m_subspace; }
    QAction *alphaCiAction() const { return m_alphaCi; }
    // Analysis ▸ per-head spectra and QK/OV circuits (--heads).
    QAction *headsAction() const { return m_heads; }
    // The tab's figure of that kind (null: it has no tab).
    FigureView *figure(FigureKind kind) const
    {
        for (FigureView *f : m_figures)
            if (f->kind() == kind)
                return f;
        return nullptr;
    }
    // What the tab shows (nullopt: no tab there).
    std::optional<FigureKind> tabKind(int tab) const;
    MetricLineChart *lineChart() const;
    LayerBarChart *barChart() const;
    TypeLayerHeatmap *heatmap(int i) const;
    SpectrumView *spectrumView() const;
    QTabWidget *tabs() const { return m_tabs; }
    // The Rank plan tab's target, controls and summary around its figure.
    RankPlanPanel *rankPlanPanel() const;
    // What the central area says instead of empty axes (empty while the figures are shown).
    QString centralMessage() const;
    QSlider *stepSlider() const { return m_stepSlider; }
    // View ▸ Play (Space): checked while the steps play.
    QAction *playAction() const { return m_playAction; }
    // Shown while the bundled demo run is open (null before the first one).
    DemoBanner *demoBanner() const { return m_demoBanner; }

    // The views of a tab and their export, as the menus do it.
    QList<ChartView *> viewsOfTab(int tab) const;
    // `ownTitle`: the figure's own (FigureView::exportTo), empty for the generated ones (none
    // under a caption: FigureSize::captioned).
    bool exportFigure(int tab, const QString &path, const FigureSize &size, QString *error, const QString &ownTitle = {});
    // User naming rules (JSON) in front of the built-in ones; the open folder is analysed again.
    bool loadNamingRules(const QString &path);
    // Loads (analysing if needed) another folder or results file and shows it beside this run.
    void addComparedRun(const QString &path);
    // Beside the open LoRA adapter run: its merged weights and the base model's own, read from
    // `base` (File ▸ Add base model…), as two runs compared with it.
    void addBaseModel(const QString &base);
    // The same once the run being opened is analysed (rankscope RUN --base PATH).
    void addBaseModelOnceOpen(const QString &base) { m_baseOnceOpen = base; }
    QList<LayerBarChart *> comparedBarPanels() const;
    // Every figure into a folder as <run>-lines/bars/heatmaps/spectrum.<format>; returns the files written.
    QStringList exportAllFigures(const QString &folder, const QString &format, const FigureSize &size, QString *error);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // The constructor's steps: a tab per figure and the message shown instead of them, the menus,
    // the controls, the step bar, the status bar, the centre (the demo's banner over them), the runs
    // dock, and what follows the view state and the analysis.
    void buildFigureArea();
    void buildCentre();
    void buildRunsDock();
    void connectToState();
    void connectToController();
    void buildMenus();
    void buildFileMenu();
    void addExportActions(QMenu *file);
    void buildViewMenu();
    void buildAnalysisMenu();
    void buildControls();
    // The types, blocks, layers and τ; then the display options on a row of their own.
    void buildFilterBar();
    void buildDisplayBar();
    void buildStepBar();
    void buildStatusBar();
    void restoreSettings();
    void saveSettings() const;
    void addRecent(const QString &path);
    void rebuildRecentMenu();
    void syncStepControls();
    void syncLayerControls();
    // Whose layer range the layer boxes show and set: the current tab's view's.
    LayerView layerViewOfTab() const;
    void syncLogYControls();
    void clearLayerControls();
    void syncRunsDock();
    // The scalars the run logged (TrainingLogs), read in the background for the curves under the lines.
    void readTrainingLogs(const QString &source);
    // In the background; knownStamp not null: only if the logs' files changed since (TrainingLogs::stamp).
    void readTrainingLogsAgain(const QString &source, const QString &knownStamp);
    // The run's training logs, read off the window's thread and handed to `done`: nullopt when
    // their stamp is still knownStamp (a null knownStamp: always read).
    void readTrainingLogs(const QString &source, const QString &knownStamp, std::function<void(const std::optional<ScalarLog> &)> done);
    void followTrainingLogs();
    // The display controls enabled where they change what the tab shows (the band for one run's lines).
    void syncControlsToTab();
    // Where exports go first: the folder of the last one (QSettings), else the run's.
    QString exportFolder() const;
    void rememberExportFolder(const QString &folder);
    void chooseRunToCompare();
    void chooseBaseModel();
    void onBaseRunsReady(const RunAnalysis &merged, const RunAnalysis &base, const QString &basePath);
    void showIssues();
    void onFinished(const RunAnalysis &run);
    void onComparisonReady(const RunAnalysis &run, const QString &path);
    void onProgress(const AnalysisProgress &progress);
    // The figures when there is something to show; otherwise a message in their place.
    void showFiguresOr(const QString &message);

    ViewState *m_state;
    AnalysisController *m_controller;
    QAction *m_randDistance = nullptr;
    QAction *m_delta = nullptr;
    QAction *m_subspace = nullptr;
    QAction *m_alphaCi = nullptr;
    QAction *m_heads = nullptr;
    WindowTheme *m_theme;
    QString m_source;
    QTabWidget *m_tabs;
    QStackedWidget *m_central = nullptr; // the tabs, or m_message
    QLabel *m_message = nullptr;
    QList<FigureView *> m_figures; // one tab each, in the catalog's order
    // The tab's name in file names: the figure's --figure NAME.
    QString tabFileName(int tab) const;
    RunListPanel *m_runList = nullptr;
    QDockWidget *m_runsDock = nullptr;
    QMenu *m_recentMenu = nullptr;
    QStringList m_recent;
    QDoubleSpinBox *m_energy = nullptr;
    QComboBox *m_aggregate = nullptr;
    QCheckBox *m_band = nullptr;
    QCheckBox *m_logY = nullptr;
    QCheckBox *m_relativeDepth = nullptr;
    TypeFilterChips *m_typeChips = nullptr; // disabled on the tabs whose figure ignores them
    QCheckBox *m_relativeStep = nullptr;
    QAction *m_playAction = nullptr; // the Play button's action, Space
    DemoBanner *m_demoBanner = nullptr;
    bool m_showingDemo = false; // the open run is the bundled demo: read once, not watched
    QAction *m_logYAction = nullptr; // View ▸ Log y, checked with m_logY
    QSpinBox *m_firstLayer = nullptr;
    QSpinBox *m_lastLayer = nullptr;
    QSlider *m_stepSlider = nullptr;
    QLabel *m_stepLabel = nullptr;
    QToolButton *m_play = nullptr;
    QTimer *m_playTimer = nullptr;
    QTimer *m_logTimer = nullptr; // looks at the run's logs again (followTrainingLogs)
    bool m_readingLogs = false;
    QString m_baseOnceOpen; // addBaseModelOnceOpen
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
    QToolButton *m_cancel = nullptr;
    QToolButton *m_issuesButton = nullptr;
};

} // namespace rankscope
