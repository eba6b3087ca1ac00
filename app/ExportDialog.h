// Asks where and how large to export a figure: file (format by suffix), width, height and the
// PNG scale factor, remembered between exports.
#pragma once

#include "FigureExporter.h"

#include <QDialog>

class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace rankscope {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(const QString &suggestedPath, QSize viewSize, QWidget *parent = nullptr);
    QString path() const;
    ExportSize size() const;

private:
    QLineEdit *m_path;
    QSpinBox *m_width;
    QSpinBox *m_height;
    QDoubleSpinBox *m_scale;
};

} // namespace rankscope
