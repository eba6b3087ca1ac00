// The per-head figures of --heads (HeadFigure): a head × layer heatmap of one metric of one head
// type at the step shown, one layer's heads as lines over the steps, or the spectrum of one head
// (of Q, K, V or O, or its QK or OV circuit) at the step shown. The header chooses what it shows;
// tooltips name the layer, the head and its key/value head. A run analysed without --heads says
// how to get them.
#pragma once

#include "ChartView.h"
#include "figures/FigureOptions.h"
#include "HeatmapCells.h"
#include "figures/HeadFigure.h"

class QComboBox;
class QSpinBox;

namespace rankscope {

class HeadView : public ChartView {
    Q_OBJECT
public:
    enum class Mode { Heatmap, Lines, Spectrum };

    explicit HeadView(ViewState *state, QWidget *parent = nullptr);
    // export: the head type (--type, default QK), the metric, and with --layer that layer's heads
    // over the steps, with --head that head's spectrum. Empty, or why not (FigurePanels::configure).
    QString configure(const ViewState &state, const FigureOptions &options);

    Mode mode() const { return m_mode; }
    void setMode(Mode mode);
    MatrixType headType() const { return m_type; }
    void setHeadType(MatrixType type);
    Metric metric() const { return m_metric; }
    void setMetric(Metric metric);
    int layer() const { return m_layer; }
    void setLayer(int layer);
    int head() const { return m_head; }
    void setHead(int head);

    const HeadHeatmap &heatmap() const { return m_heatmap; }
    const HeadLines &lines() const { return m_lines; }
    // The heatmap's cells printing their value now (0 when they are too small, or in another mode).
    int cellTextCount() const { return m_cellTexts ? m_cellTexts->count() : 0; }
    // The spectrum shown in Spectrum mode (empty: none).
    const MatrixResult *spectrumRow() const;

    QString tooltipAt(const QPoint &pixel) const override;
    std::optional<MatrixKey> matrixAt(const QPoint &) const override { return std::nullopt; }
    QString dataCsv() const override;
    // The heatmap's axes can say what its title says (the lines and the spectrum keep theirs).
    bool labelsCanReplaceTitle() const override { return m_mode == Mode::Heatmap; }

public slots:
    void rebuild() override;

protected:
    std::unique_ptr<ChartView> createSibling() const override;
    void adaptLayout(QSize size) override;

signals:
    // Another mode: the window's Layers boxes act on the heatmap only (the lines and the spectrum
    // are of one layer, from the view's own box).
    void modeChanged(HeadView::Mode mode);

private:
    void labelHeatmapAxes();
    void addControls();
    void syncControls();
    void drawHeatmap();
    void drawLines();
    void drawSpectrum();
    void clearPlot();

    Mode m_mode = Mode::Heatmap;
    MatrixType m_type = MatrixType::QK;
    Metric m_metric = Metric::StableRank;
    int m_layer = 0;
    int m_head = 0;
    HeadHeatmap m_heatmap;
    HeadLines m_lines;
    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    QCPMarginGroup *m_margins = nullptr; // the colour bar as tall as the plot
    std::unique_ptr<HeatmapCellTexts> m_cellTexts; // the heatmap's values, while it is shown
    QComboBox *m_modeBox = nullptr;
    QComboBox *m_typeBox = nullptr;
    MetricSelector *m_metricBox = nullptr;
    QSpinBox *m_layerBox = nullptr;
    QSpinBox *m_headBox = nullptr;
};

} // namespace rankscope
