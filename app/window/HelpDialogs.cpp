#include "HelpDialogs.h"

#include <QAction>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QMenu>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace rankscope {

namespace {

// The texts of these dialogs, in the translation context "HelpDialogs".
struct HelpTexts {
    Q_DECLARE_TR_FUNCTIONS(HelpDialogs)
};

void showText(QWidget *window, const QString &title, const QString &objectName, void (QTextEdit::*set)(const QString &), const QString &text)
{
    auto *dialog = new QDialog(window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(objectName);
    dialog->setWindowTitle(title);
    auto *layout = new QVBoxLayout(dialog);
    auto *browser = new QTextBrowser(dialog);
    browser->setOpenExternalLinks(true);
    (browser->*set)(text);
    layout->addWidget(browser);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog->resize(760, 560);
    dialog->show();
}

} // namespace

QString shortcutsHtml(const QWidget *window)
{
    QString rows;
    auto row = [&rows](const QString &keys, const QString &what) {
        rows += QStringLiteral("<tr><td style='padding-right:18px'><b>%1</b></td><td>%2</td></tr>").arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
    };
    // The menus' actions, in the menus' order: what each key does is the action's own text.
    for (const QMenu *menu : window->findChildren<QMenu *>())
        for (const QAction *action : menu->actions()) {
            if (action->shortcut().isEmpty() || action->menu())
                continue;
            row(action->shortcut().toString(QKeySequence::NativeText), action->text().remove(QLatin1Char('&')));
        }
    row(HelpTexts::tr("Mouse wheel, drag"), HelpTexts::tr("Zoom and pan a chart"));
    row(HelpTexts::tr("Shift+drag"), HelpTexts::tr("Zoom into a rectangle"));
    row(HelpTexts::tr("Home, double-click"), HelpTexts::tr("Back to the ranges that fit the data"));
    row(HelpTexts::tr("Click"), HelpTexts::tr("A bar, heatmap cell or per-layer point opens that matrix's spectrum"));
    return HelpTexts::tr("<p>The step keys, Space and the menu shortcuts work wherever the focus is in the window, "
              "the layer and energy boxes included (their ↑/↓ change the number).</p>")
        + QStringLiteral("<table>%1</table>").arg(rows);
}

QString metricDefinitionsMarkdown()
{
    QFile file(QStringLiteral(":/docs/metrics.md"));
    if (!file.open(QIODevice::ReadOnly))
        return HelpTexts::tr("The metric definitions are missing from this build (docs/metrics.md).");
    return QString::fromUtf8(file.readAll());
}

void showShortcuts(QWidget *window)
{
    showText(window, HelpTexts::tr("Keyboard shortcuts"), QStringLiteral("shortcuts"), &QTextBrowser::setHtml, shortcutsHtml(window));
}

void showMetricDefinitions(QWidget *window)
{
    showText(window, HelpTexts::tr("Metric definitions"), QStringLiteral("metricDefinitions"), &QTextBrowser::setMarkdown, metricDefinitionsMarkdown());
}

} // namespace rankscope
