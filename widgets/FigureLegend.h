// One legend for a figure of several panels whose legends say the same thing — the lines beside
// the bars of the same types (figure (1)), compared runs' bars — drawn in a row of its own above
// the panels, as matplotlib's fig.legend puts it: no entry is repeated, and no panel's plot is
// pushed down by a legend its neighbours do not have.
#pragma once

#include <QRect>
#include <QStringList>
#include <memory>
#include <vector>

class QCPLegend;
class QCPPainter;
class QCustomPlot;

namespace rankscope {

class FigureLegend {
public:
    // The legend the panels' legends share, laid out in rows `width` pixels wide: the one with
    // the most entries, when every other's entries (name and colour) are among them. None when
    // one says something else, or when an entry is of a kind it cannot redraw.
    static std::unique_ptr<FigureLegend> shared(const std::vector<QCPLegend *> &legends, int width, bool dark);
    ~FigureLegend();

    // The row's height, and the entries in it, in order.
    int height() const { return m_height; }
    QStringList entries() const;
    // The legend centred in the row whose top left is `origin`.
    void render(QCPPainter *painter, QPoint origin);

private:
    FigureLegend() = default;
    std::unique_ptr<QCustomPlot> m_plot; // the legend's own plot: its entries' plottables, no axes
    QCPLegend *m_legend = nullptr;
    int m_width = 0, m_height = 0;
};

} // namespace rankscope
