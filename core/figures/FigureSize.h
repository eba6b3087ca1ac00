// How large a figure is on paper and how its text is set: width and height in points (1/72 inch),
// the resolution of a PNG, and the base font size in points. Figures are laid out in pixels at
// 96 dpi, as on screen, so a font of a given point size is the same on screen and on paper.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

struct FigureSize {
    static constexpr double kLayoutDpi = 96;
    static constexpr double kScreenFontPt = 9;

    double widthPt = 900;  // 1200 × 750 pixels at 96 dpi
    double heightPt = 562.5;
    double dpi = 96;       // PNG pixels per inch
    double fontPt = kScreenFontPt; // tick labels; axis labels and titles a little larger
    bool dark = false; // on the dark theme's background; papers get the light one unless asked
    // A figure for a paper (the column and two-column presets), set under its caption as an author
    // submits it: no generated title (the axis labels say what it said), lines without markers.
    bool captioned = false;

    // The figure in layout pixels (96 dpi), and a PNG's pixels.
    QSize layoutSize() const;
    QSize pixelSize() const;

    // width × height pixels at 96 dpi; a PNG `scale` times as many (the export options before sizes on paper).
    static FigureSize fromPixels(int width, int height, double scale = 1);
    // column (3.3 × 2.4 in, 7 pt), two-column (7 × 3.5 in, 8 pt), both captioned; slide (13.33 × 7.5 in, 16 pt).
    static std::optional<FigureSize> preset(const QString &name);
    static QStringList presetNames();
    // "3.3x2.4in", "8.5x6cm", "90x60mm", "600x400pt", "1200x750px": a width and height in points.
    static std::optional<std::pair<double, double>> parseSize(const QString &text, QString *error);
    // Sizes, font and resolution within what can be drawn and read.
    bool isValid(QString *error) const;
};

} // namespace rankscope
