#include "FigureExporter.h"

#include "io/OutputFile.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace rankscope {

namespace {

// Each panel gets an equal share of the width, drawn at its own origin.
void renderPanels(const QList<QCustomPlot *> &panels, QCPPainter &painter, int width, int height)
{
    const int panelWidth = width / int(panels.size());
    for (qsizetype i = 0; i < panels.size(); ++i) {
        QCustomPlot *plot = panels[i];
        plot->deselectAll(); // selection is not part of a figure
        // Lay the plot out at the export size first, so size-dependent content (heatmap cell
        // labels) matches what is drawn.
        plot->setViewport(QRect(0, 0, panelWidth, height));
        plot->replot(QCustomPlot::rpImmediateRefresh);
        painter.save();
        painter.translate(panelWidth * double(i), 0);
        plot->toPainter(&painter, panelWidth, height);
        painter.restore();
    }
}

// Real vectors: no cached pixmaps, and pens that scale with the figure.
bool paintVectorized(QPaintDevice *device, const QList<QCustomPlot *> &panels, int width, int height)
{
    QCPPainter painter;
    if (!painter.begin(device))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    renderPanels(panels, painter, width, height);
    return painter.end();
}

} // namespace

bool FigureExporter::write(const QList<QCustomPlot *> &panels, const QString &path, ExportSize size, QString *error)
{
    if (panels.isEmpty()) {
        *error = QStringLiteral("nothing to export");
        return false;
    }
    if (size.width < 50 || size.height < 50 || size.width > 20000 || size.height > 20000 || !(size.scale > 0 && size.scale <= 10)) {
        *error = QStringLiteral("size %1×%2 at scale %3 is out of range").arg(size.width).arg(size.height).arg(size.scale);
        return false;
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    // Drawn into memory, then written whole: a failed export leaves the earlier file as it was,
    // and never an SVG cut short.
    QBuffer figure;
    figure.open(QIODevice::WriteOnly);
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        QImage image(qRound(size.width * size.scale), qRound(size.height * size.scale), QImage::Format_ARGB32);
        image.fill(Qt::white);
        {
            QCPPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::TextAntialiasing);
            painter.scale(size.scale, size.scale);
            renderPanels(panels, painter, size.width, size.height);
        }
        image.setDotsPerMeterX(qRound(3780 * size.scale)); // 96 dpi at scale 1
        image.setDotsPerMeterY(qRound(3780 * size.scale));
        ok = image.save(&figure, "PNG");
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setOutputDevice(&figure);
        generator.setSize(QSize(size.width, size.height));
        generator.setViewBox(QRect(0, 0, size.width, size.height));
        generator.setTitle(QStringLiteral("RankScope figure"));
        ok = paintVectorized(&generator, panels, size.width, size.height);
    } else if (suffix == QLatin1String("pdf")) {
        QPdfWriter writer(&figure);
        writer.setCreator(QStringLiteral("RankScope"));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setPageSize(QPageSize(QSizeF(size.width, size.height), QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setResolution(72); // one logical pixel is one point
        ok = paintVectorized(&writer, panels, size.width, size.height);
    } else {
        *error = QStringLiteral("%1: unknown figure format '%2' (png, svg or pdf)").arg(path, suffix);
        return false;
    }
    for (QCustomPlot *plot : panels) { // back to the on-screen layout
        plot->setViewport(plot->rect());
        plot->replot();
    }
    if (!ok) {
        *error = QStringLiteral("%1: the figure could not be drawn").arg(path);
        return false;
    }
    return writeOutputFile(path, figure.data(), error);
}

} // namespace rankscope
