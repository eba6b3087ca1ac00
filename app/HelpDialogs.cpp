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

QString tr(const char *text) { return QCoreApplication::translate("HelpDialogs", text); }

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
    row(tr("Mouse wheel, drag"), tr("Zoom and pan a chart"));
    row(tr("Shift+drag"), tr("Zoom into a rectangle"));
    row(tr("Home, double-click"), tr("Back to the ranges that fit the data"));
    row(tr("Click"), tr("A bar, heatmap cell or per-layer point opens that matrix's spectrum"));
    return tr("<p>The step keys, Space and the menu shortcuts work wherever the focus is in the window, "
              "the layer and energy boxes included (their ↑/↓ change the number).</p>")
        + QStringLiteral("<table>%1</table>").arg(rows);
}

QString metricDefinitionsMarkdown()
{
    QFile file(QStringLiteral(":/docs/metrics.md"));
    if (!file.open(QIODevice::ReadOnly))
        return tr("The metric definitions are missing from this build (docs/metrics.md).");
    return QString::fromUtf8(file.readAll());
}

void showShortcuts(QWidget *window)
{
    showText(window, tr("Keyboard shortcuts"), QStringLiteral("shortcuts"), &QTextBrowser::setHtml, shortcutsHtml(window));
}

void showMetricDefinitions(QWidget *window)
{
    showText(window, tr("Metric definitions"), QStringLiteral("metricDefinitions"), &QTextBrowser::setMarkdown, metricDefinitionsMarkdown());
}

} // namespace rankscope
