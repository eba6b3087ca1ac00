#include "ExportDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>

namespace rankscope {

ExportDialog::ExportDialog(const QString &suggestedPath, QSize viewSize, LegendPosition legend, QWidget *parent, Target target)
    : QDialog(parent), m_path(new QLineEdit(this)), m_preset(new QComboBox(this)), m_width(new QDoubleSpinBox(this)),
      m_height(new QDoubleSpinBox(this)), m_unit(new QComboBox(this)), m_dpi(new QDoubleSpinBox(this)), m_font(new QDoubleSpinBox(this)),
      m_legend(new QComboBox(this)), m_dark(new QCheckBox(tr("Dark background (for slides)"), this)), m_viewSize(viewSize)
{
    for (LegendPosition position : allLegendPositions())
        m_legend->addItem(legendPositionLabel(position), int(position));
    m_legend->setCurrentIndex(std::max(0, m_legend->findData(int(legend))));
    m_legend->setToolTip(tr("Lines and bars; the window shows the same"));
    const bool folder = target == Target::Folder;
    setWindowTitle(folder ? tr("Export all figures") : tr("Export figure"));
    QHBoxLayout *pathRow = makePathRow(suggestedPath, folder);
    setUpSizeBoxes();
    QSettings settings;
    restoreSize(settings);

    auto *sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(m_height);
    sizeRow->addWidget(m_unit);
    auto *form = new QFormLayout(this);
    m_title = new QLineEdit(this);
    if (folder) {
        form->addRow(tr("Folder"), pathRow);
        m_format = new QComboBox(this);
        for (const char *format : {"png", "svg", "pdf"})
            m_format->addItem(QString::fromLatin1(format).toUpper(), QString::fromLatin1(format));
        m_format->setCurrentIndex(std::max(0, m_format->findData(settings.value(QStringLiteral("export/format"), QStringLiteral("png")))));
        form->addRow(tr("Format"), m_format);
        m_title->setVisible(false); // each figure keeps its own
    } else {
        form->addRow(tr("File (.png, .svg, .pdf)"), pathRow);
        // The figure's own title; left empty, each panel keeps the generated title naming its metric.
        m_title->setPlaceholderText(tr("generated: each panel names its metric and run (a paper size: none, the caption's)"));
        m_title->setToolTip(tr("A figure of one panel takes it as its title; one of several panels gets it above them all"));
        form->addRow(tr("Title"), m_title);
    }
    form->addRow(tr("Size"), m_preset);
    form->addRow(QString(), sizeRow);
    form->addRow(tr("Resolution"), m_dpi);
    form->addRow(tr("Font size"), m_font);
    form->addRow(tr("Legend"), m_legend);
    m_dark->setChecked(settings.value(QStringLiteral("export/dark"), false).toBool());
    form->addRow(QString(), m_dark);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        saveChoices();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QHBoxLayout *ExportDialog::makePathRow(const QString &suggestedPath, bool folder)
{
    m_path->setText(suggestedPath);
    // Wide enough to read a path of a few folders (a 20-character field cut "/home/me/paper/fig…").
    m_path->setMinimumWidth(std::clamp(m_path->fontMetrics().horizontalAdvance(suggestedPath) + 24, m_path->fontMetrics().averageCharWidth() * 64, 900));
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this, folder] {
        const QString chosen = folder ? QFileDialog::getExistingDirectory(this, tr("Export every figure into a folder"), m_path->text())
                                      : QFileDialog::getSaveFileName(this, tr("Export figure"), m_path->text(),
                                                                     tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"));
        if (!chosen.isEmpty())
            m_path->setText(chosen);
    });
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    return pathRow;
}

// The size's boxes: presets, units, ranges, and how they follow each other.
void ExportDialog::setUpSizeBoxes()
{
    m_preset->addItem(tr("As on screen"), QString());
    m_preset->addItem(tr("Paper, one column (3.3 × 2.4 in)"), QStringLiteral("column"));
    m_preset->addItem(tr("Paper, two columns (7 × 3.5 in)"), QStringLiteral("two-column"));
    m_preset->addItem(tr("Slide (13.33 × 7.5 in)"), QStringLiteral("slide"));
    m_preset->addItem(tr("Custom"), QStringLiteral("custom"));
    m_unit->addItem(tr("in"), 72.0);
    m_unit->addItem(tr("cm"), 72.0 / 2.54);
    m_unit->addItem(tr("px"), 72.0 / FigureSize::kLayoutDpi);
    for (QDoubleSpinBox *box : {m_width, m_height}) {
        box->setRange(0.5, 20000);
        box->setDecimals(2);
    }
    m_dpi->setRange(72, 1200);
    m_dpi->setDecimals(0);
    m_dpi->setSuffix(tr(" dpi"));
    m_dpi->setToolTip(tr("PNG only: SVG and PDF are vector"));
    m_font->setRange(5, 32);
    m_font->setDecimals(1);
    m_font->setSuffix(tr(" pt"));
    m_font->setToolTip(tr("The tick labels; axis labels are 1 pt larger, titles 2 pt"));

    // A unit change keeps the size; a preset sets everything; editing a number makes it custom.
    double shownUnit = m_unit->currentData().toDouble();
    connect(m_unit, &QComboBox::currentIndexChanged, this, [this, shownUnit]() mutable {
        const double k = shownUnit / pointsPerUnit();
        m_width->setValue(m_width->value() * k);
        m_height->setValue(m_height->value() * k);
        shownUnit = pointsPerUnit();
    });
    connect(m_preset, &QComboBox::activated, this, [this] {
        const QString name = m_preset->currentData().toString();
        if (const auto preset = FigureSize::preset(name))
            showSize(*preset);
        else if (name.isEmpty())
            showSize(FigureSize::fromPixels(std::max(600, m_viewSize.width()), std::max(400, m_viewSize.height()), 2));
    });
    for (QDoubleSpinBox *box : {m_width, m_height, m_dpi, m_font})
        connect(box, &QDoubleSpinBox::editingFinished, this, [this] { m_preset->setCurrentIndex(m_preset->findData(QStringLiteral("custom"))); });
}

// The size chosen last time, or the preset's.
void ExportDialog::restoreSize(const QSettings &settings)
{
    const QString preset = settings.value(QStringLiteral("export/preset")).toString();
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(preset)));
    m_unit->setCurrentIndex(std::max(0, m_unit->findText(settings.value(QStringLiteral("export/unit"), tr("in")).toString())));
    if (preset == QLatin1String("custom") && settings.contains(QStringLiteral("export/widthPt")))
        showSize({settings.value(QStringLiteral("export/widthPt")).toDouble(), settings.value(QStringLiteral("export/heightPt")).toDouble(),
                  settings.value(QStringLiteral("export/dpi"), 300).toDouble(), settings.value(QStringLiteral("export/fontPt"), 9).toDouble()});
    else
        emit m_preset->activated(m_preset->currentIndex());
}

// What the next export starts from.
void ExportDialog::saveChoices()
{
    QSettings s;
    const FigureSize chosen = size();
    s.setValue(QStringLiteral("export/preset"), m_preset->currentData().toString());
    s.setValue(QStringLiteral("export/unit"), m_unit->currentText());
    s.setValue(QStringLiteral("export/widthPt"), chosen.widthPt);
    s.setValue(QStringLiteral("export/heightPt"), chosen.heightPt);
    s.setValue(QStringLiteral("export/dpi"), chosen.dpi);
    s.setValue(QStringLiteral("export/fontPt"), chosen.fontPt);
    s.setValue(QStringLiteral("export/dark"), chosen.dark);
    if (m_format)
        s.setValue(QStringLiteral("export/format"), format());
}

double ExportDialog::pointsPerUnit() const { return m_unit->currentData().toDouble(); }

void ExportDialog::showSize(const FigureSize &size)
{
    m_width->setValue(size.widthPt / pointsPerUnit());
    m_height->setValue(size.heightPt / pointsPerUnit());
    m_dpi->setValue(size.dpi);
    m_font->setValue(size.fontPt);
}

QString ExportDialog::path() const { return m_path->text(); }

QString ExportDialog::format() const
{
    return m_format ? m_format->currentData().toString() : QFileInfo(path()).suffix().toLower();
}

QString ExportDialog::title() const { return m_title->text().trimmed(); }

FigureSize ExportDialog::size() const
{
    // A paper preset chosen and left as it is: a figure under a caption (no generated title).
    const std::optional<FigureSize> preset = FigureSize::preset(m_preset->currentData().toString());
    return {m_width->value() * pointsPerUnit(), m_height->value() * pointsPerUnit(), m_dpi->value(), m_font->value(), m_dark->isChecked(),
            preset && preset->captioned};
}

LegendPosition ExportDialog::legendPosition() const { return LegendPosition(m_legend->currentData().toInt()); }

} // namespace rankscope
