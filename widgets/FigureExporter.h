// Writes a figure, one plot or several side by side (the heatmap pair), as PNG at a chosen size
// and scale, as SVG with real vectors and text kept as text, or as PDF. What is written is what
// the view draws, minus hover decorations and selection.
#pragma once

#include <QList>
#include <QString>

class QCustomPlot;

namespace rankscope {

struct ExportSize {
    int width = 1200;  // logical pixels (points in a PDF) of the whole figure
    int height = 750;
    double scale = 1;  // PNG only: 2 gives a 2400×1500 image for 300-dpi print
};

class FigureExporter {
public:
    // The format comes from the file's suffix: .png, .svg or .pdf.
    static bool write(const QList<QCustomPlot *> &panels, const QString &path, ExportSize size, QString *error);
    static QStringList formats() { return {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}; }
};

} // namespace rankscope
