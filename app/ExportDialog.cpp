#include "ExportDialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace rankscope {

ExportDialog::ExportDialog(const QString &suggestedPath, QSize viewSize, QWidget *parent)
    : QDialog(parent), m_path(new QLineEdit(this)), m_width(new QSpinBox(this)), m_height(new QSpinBox(this)),
      m_scale(new QDoubleSpinBox(this))
{
    setWindowTitle(tr("Export figure"));
    QSettings settings;
    m_path->setText(suggestedPath);
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(this, tr("Export figure"), m_path->text(),
                                                            tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"));
        if (!chosen.isEmpty())
            m_path->setText(chosen);
    });
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    for (QSpinBox *box : {m_width, m_height}) {
        box->setRange(200, 10000);
        box->setSuffix(tr(" px"));
    }
    m_width->setValue(settings.value(QStringLiteral("export/width"), std::max(600, viewSize.width())).toInt());
    m_height->setValue(settings.value(QStringLiteral("export/height"), std::max(400, viewSize.height())).toInt());
    m_scale->setRange(0.5, 6);
    m_scale->setSingleStep(0.5);
    m_scale->setValue(settings.value(QStringLiteral("export/scale"), 2.0).toDouble());
    m_scale->setToolTip(tr("PNG only: 2 doubles the pixels for print; SVG and PDF are vector"));
    auto *form = new QFormLayout(this);
    form->addRow(tr("File (.png, .svg, .pdf)"), pathRow);
    form->addRow(tr("Width"), m_width);
    form->addRow(tr("Height"), m_height);
    form->addRow(tr("PNG scale"), m_scale);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings s;
        s.setValue(QStringLiteral("export/width"), m_width->value());
        s.setValue(QStringLiteral("export/height"), m_height->value());
        s.setValue(QStringLiteral("export/scale"), m_scale->value());
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QString ExportDialog::path() const { return m_path->text(); }

ExportSize ExportDialog::size() const { return {m_width->value(), m_height->value(), m_scale->value()}; }

} // namespace rankscope
