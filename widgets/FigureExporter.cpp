#include "FigureExporter.h"

#include "ChartView.h"
#include "PlotStyle.h"
#include "io/OutputFile.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <memory>
#include <numeric>
#include <vector>
#include <qcustomplot.h>

namespace rankscope {

namespace {

using Panels = FigureExporter::PaperPanels;

// The title over a figure of several panels, and the height it takes (none when empty).
struct FigureTitle {
    QString text;
    QFont font;
    int height = 0;
    FigureTitle(const QString &title, const FigureSize &size) : text(title), font(PlotStyle::titleFont(size.fontPt))
    {
        font.setPointSizeF(font.pointSizeF() + 1);
        height = text.isEmpty() ? 0 : int(std::ceil(QFontMetricsF(font).height() * 1.6));
    }
};

// The figure's title in its strip at the top, in the theme's text colour, elided to the width.
void renderTitle(const FigureTitle &title, QCPPainter &painter, QSize size, bool dark)
{
    if (title.text.isEmpty())
        return;
    painter.save();
    painter.setFont(title.font);
    painter.setPen(PlotStyle::Theme::of(dark).text);
    const QString shown = QFontMetricsF(title.font).elidedText(title.text, Qt::ElideRight, size.width() - 16);
    painter.drawText(QRectF(0, 0, size.width(), title.height), Qt::AlignCenter, shown);
    painter.restore();
}

// The widths of a row's panels: equal shares, or, when every panel spans layers (compared runs'
// bars or heatmaps), shares as their layers, so that a layer is as wide in each.
QList<int> panelWidths(const QList<ChartView *> &row, int width)
{
    QList<int> weights;
    for (const ChartView *view : row)
        weights << view->layerColumns();
    if (std::any_of(weights.begin(), weights.end(), [](int w) { return w <= 0; }))
        weights = QList<int>(row.size(), 1);
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    QList<int> widths;
    for (int w : weights)
        widths << int(width * w / total);
    return widths;
}

// Each panel drawn at its own origin, left to right, at the size it was laid out for below the title.
void renderPanels(const Panels &rows, QCPPainter &painter, QSize size, int top = 0)
{
    const int panelHeight = (size.height() - top) / int(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
        int left = 0;
        for (size_t c = 0; c < rows[r].size(); ++c) {
            QCustomPlot *plot = rows[r][c]->plot();
            const int panelWidth = plot->viewport().width();
            painter.save();
            painter.translate(left, top + panelHeight * double(r));
            plot->toPainter(&painter, panelWidth, panelHeight);
            painter.restore();
            left += panelWidth;
        }
    }
}

// Real vectors: no cached pixmaps, and pens that scale with the figure.
bool paintVectorized(QPaintDevice *device, const FigureExporter::PaperFigure &figure, QSize size, const FigureTitle &title, bool dark)
{
    QCPPainter painter;
    if (!painter.begin(device))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    renderTitle(title, painter, size, dark);
    if (figure.legend)
        figure.legend->render(&painter, QPoint(0, title.height));
    renderPanels(figure.panels, painter, size, title.height + (figure.legend ? figure.legend->height() : 0));
    return painter.end();
}

} // namespace

FigureExporter::PaperFigure FigureExporter::layOut(const QList<QList<ChartView *>> &rows, const FigureSize &size, const std::optional<QString> &title)
{
    const QSize layout = size.layoutSize();
    const bool onePanel = rows.size() == 1 && rows.first().size() == 1;
    const FigureTitle figureTitle(onePanel ? QString() : title.value_or(QString()), size);
    // One panel takes the figure's title; several keep their own, or have none when none is asked.
    const std::optional<QString> panelTitle = onePanel || (title && title->isEmpty()) ? title : std::nullopt;
    const int panelsHeight = layout.height() - figureTitle.height;
    const int rowCount = int(rows.size());
    PaperFigure figure;
    Panels &panels = figure.panels;
    QList<QList<int>> widths;
    for (const QList<ChartView *> &row : rows) {
        panels.emplace_back();
        widths << panelWidths(row, layout.width());
        for (qsizetype c = 0; c < row.size(); ++c)
            panels.back().push_back(row[c]->paperCopy({QSize(widths.last()[c], panelsHeight / rowCount), size.fontPt, size.dark, size.captioned},
                                                      panelTitle));
    }
    // Panels whose legends say the same share one, in a row over them all.
    if (!onePanel) {
        std::vector<QCPLegend *> legends;
        for (const auto &row : panels)
            for (const auto &p : row)
                if (p->legendGoesAbove())
                    legends.push_back(p->plot()->legend);
        if (!legends.empty())
            figure.legend = FigureLegend::shared(legends, layout.width(), size.dark);
        if (figure.legend)
            for (size_t r = 0; r < panels.size(); ++r)
                for (size_t c = 0; c < panels[r].size(); ++c)
                    panels[r][c]->leaveLegendToFigure(QSize(widths[int(r)][int(c)], (panelsHeight - figure.legend->height()) / rowCount));
    }
    for (const auto &made : panels) {
        // Panels of one run side by side: when one has no room for the run's name, none names it.
        const QString run = made.front()->titleRun();
        const bool oneRun = !run.isEmpty() && std::all_of(made.begin(), made.end(), [&](const auto &p) { return p->titleRun() == run; });
        if (oneRun && std::any_of(made.begin(), made.end(), [](const auto &p) { return !p->titleNamesRun(); }))
            for (const auto &p : made)
                if (p->titleNamesRun())
                    p->dropRunFromTitle();
        // Panels of several runs: each names its own, on two lines when one is too short.
        if (!oneRun)
            for (const auto &p : made)
                if (!p->titleRun().isEmpty() && !p->titleNamesRun())
                    p->keepRunInTitle();
        // Plots side by side level, at the top and the bottom, whatever their titles' lines.
        if (made.size() < 2)
            continue;
        int top = 0, bottom = 0;
        for (const auto &p : made) {
            const QRect plot = p->plot()->axisRect()->rect();
            top = std::max(top, plot.top());
            bottom = std::max(bottom, p->plot()->viewport().height() - 1 - plot.bottom());
        }
        for (const auto &p : made) {
            const QRect plot = p->plot()->axisRect()->rect();
            if (plot.top() != top || p->plot()->viewport().height() - 1 - plot.bottom() != bottom)
                p->alignPlot(top, bottom);
        }
    }
    // Plots stacked in one column (the training curves under the lines) share their x axis: their
    // left edges level, so a step stands above the same step.
    if (panels.size() > 1 && std::all_of(panels.begin(), panels.end(), [](const auto &row) { return row.size() == 1; })) {
        // The numbers and label of a shared step axis once, under the lowest plot.
        const ChartView *lowest = panels.back().front().get();
        for (size_t r = 0; r + 1 < panels.size(); ++r) {
            ChartView *above = panels[r].front().get();
            if (above->xAxisLabel() == lowest->xAxisLabel() && above->plot()->xAxis->range() == lowest->plot()->xAxis->range())
                above->leaveStepAxisToBelow();
        }
        int left = 0;
        for (const auto &row : panels)
            left = std::max(left, row.front()->plotLeft());
        for (const auto &row : panels)
            if (row.front()->plotLeft() != left)
                row.front()->alignPlotLeft(left);
    }
    return figure;
}

bool FigureExporter::write(const QList<QList<ChartView *>> &rows, const QString &path, const FigureSize &size, QString *error,
                           const std::optional<QString> &title)
{
    if (rows.isEmpty() || std::any_of(rows.begin(), rows.end(), [](const QList<ChartView *> &row) { return row.isEmpty(); })) {
        *error = QStringLiteral("nothing to export");
        return false;
    }
    if (!size.isValid(error))
        return false;
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (!formats().contains(suffix)) {
        *error = QStringLiteral("%1: unknown figure format '%2' (png, svg or pdf)").arg(path, suffix);
        return false;
    }
    // Fresh panels drawn for paper: the views on screen stay as they are.
    const QSize layout = size.layoutSize();
    const bool onePanel = rows.size() == 1 && rows.first().size() == 1;
    const FigureTitle figureTitle(onePanel ? QString() : title.value_or(QString()), size);
    const PaperFigure laidOut = layOut(rows, size, title);
    const Panels &panels = laidOut.panels;
    const int legendHeight = laidOut.legend ? laidOut.legend->height() : 0;

    // Drawn into memory, then written whole: a failed export leaves the earlier file as it was,
    // and never an SVG cut short.
    QBuffer figure;
    figure.open(QIODevice::WriteOnly);
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        const QSize pixels = size.pixelSize();
        QImage image(pixels, QImage::Format_ARGB32);
        image.fill(PlotStyle::Theme::of(size.dark).background);
        {
            QCPPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::TextAntialiasing);
            painter.scale(double(pixels.width()) / layout.width(), double(pixels.height()) / layout.height());
            renderTitle(figureTitle, painter, layout, size.dark);
            if (laidOut.legend)
                laidOut.legend->render(&painter, QPoint(0, figureTitle.height));
            renderPanels(panels, painter, layout, figureTitle.height + legendHeight);
        }
        const int dotsPerMeter = int(std::lround(size.dpi / 0.0254));
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
        ok = image.save(&figure, "PNG");
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setOutputDevice(&figure);
        generator.setResolution(int(FigureSize::kLayoutDpi)); // width and height then come out in real units
        generator.setSize(layout);
        generator.setViewBox(QRect(QPoint(0, 0), layout));
        generator.setTitle(QStringLiteral("RankScope figure"));
        ok = paintVectorized(&generator, laidOut, layout, figureTitle, size.dark);
    } else {
        QPdfWriter writer(&figure);
        writer.setCreator(QStringLiteral("RankScope"));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setPageSize(QPageSize(QSizeF(size.widthPt, size.heightPt), QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setResolution(int(FigureSize::kLayoutDpi)); // one layout pixel is 1/96 inch, as on screen
        ok = paintVectorized(&writer, laidOut, layout, figureTitle, size.dark);
    }
    if (!ok) {
        *error = QStringLiteral("%1: the figure could not be drawn").arg(path);
        return false;
    }
    return writeOutputFile(path, figure.data(), error);
}

} // namespace rankscope
