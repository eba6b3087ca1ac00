// Asks where and how large to export a figure: the file (format by suffix), a preset (a paper
// column, two columns, a slide) or a size in inches, centimetres or pixels, the PNG resolution and
// the base font size, remembered between exports; where the legend goes, and a dark background
// (for slides) instead of paper's white. For every figure at once, a folder and a format instead of
// a file, and no title (each figure keeps its own).
#pragma once

#include "figures/FigureSize.h"
#include "figures/LegendPosition.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QSettings;
class QDoubleSpinBox;
class QLineEdit;

namespace rankscope {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    enum class Target { File, Folder };
    ExportDialog(const QString &suggestedPath, QSize viewSize, LegendPosition legend, QWidget *parent = nullptr, Target target = Target::File);
    // The file, or for Target::Folder the folder.
    QString path() const;
    // "png", "svg" or "pdf": the file's suffix, or the format chosen for a folder.
    QString format() const;
    // The title the user gave the figure (empty: the generated titles).
    QString title() const;
    FigureSize size() const;
    LegendPosition legendPosition() const;

private:
    // Points per unit of the width and height boxes.
    double pointsPerUnit() const;
    void showSize(const FigureSize &size);
    QHBoxLayout *makePathRow(const QString &suggestedPath, bool folder);
    void setUpSizeBoxes();
    void restoreSize(const QSettings &settings);
    void saveChoices();

    QLineEdit *m_path;
    QComboBox *m_format = nullptr;
    QLineEdit *m_title = nullptr;
    QComboBox *m_preset;
    QDoubleSpinBox *m_width;
    QDoubleSpinBox *m_height;
    QComboBox *m_unit;
    QDoubleSpinBox *m_dpi;
    QDoubleSpinBox *m_font;
    QComboBox *m_legend;
    QCheckBox *m_dark;
    QSize m_viewSize;
};

} // namespace rankscope
