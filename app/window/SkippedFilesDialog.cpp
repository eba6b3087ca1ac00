#include "SkippedFilesDialog.h"

#include "analysis/results/RunSummary.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>

#include <algorithm>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rankscope {

namespace {

// The texts of the dialog, in the translation context "SkippedFilesDialog".
struct SkippedTexts {
    Q_DECLARE_TR_FUNCTIONS(SkippedFilesDialog)
};

QString groupTitle(SkippedGroup::Kind kind, int count)
{
    switch (kind) {
    case SkippedGroup::Kind::Failures: return SkippedTexts::tr("Could not be read (%n)", nullptr, count);
    case SkippedGroup::Kind::Duplicates: return SkippedTexts::tr("Left out: another checkpoint has the same step (%n)", nullptr, count);
    case SkippedGroup::Kind::LeftOut: return SkippedTexts::tr("Left out as expected: sidecars, logs and other files (%n)", nullptr, count);
    case SkippedGroup::Kind::Notes: return SkippedTexts::tr("Notes on how the run was read (%n)", nullptr, count);
    }
    return {};
}

} // namespace

QString pathWithinRun(const QString &path, const QString &runFolder)
{
    if (path.isEmpty() || runFolder.isEmpty())
        return QDir::toNativeSeparators(path);
    const QString relative = QDir(runFolder).relativeFilePath(QFileInfo(path).absoluteFilePath());
    return QDir::toNativeSeparators(relative.startsWith(QLatin1String("..")) ? path : relative);
}

QList<SkippedGroup> skippedGroups(const RunAnalysis &run)
{
    using Kind = SkippedGroup::Kind;
    QList<SkippedGroup> groups{{Kind::Failures, {}, {}}, {Kind::Duplicates, {}, {}}, {Kind::LeftOut, {}, {}}, {Kind::Notes, {}, {}}};
    auto add = [&groups](Kind kind, SkippedRow row) { groups[int(kind)].rows.append(std::move(row)); };
    for (const AnalysisIssue &issue : run.issues)
        add(Kind::Failures, {pathWithinRun(issue.path, run.folder), issue.tensor, issue.message});
    for (const SkippedFile &file : run.sidecars)
        add(file.problem ? Kind::Failures : file.duplicate ? Kind::Duplicates : Kind::LeftOut, {pathWithinRun(file.path, run.folder), {}, file.reason});
    for (const QString &note : run.notes)
        add(Kind::Notes, {{}, {}, note});
    for (const TrajectoryFinding &finding : RunSummary(run).trajectoryFindings())
        add(Kind::Notes, {SkippedTexts::tr("step %1").arg(stepLabel(finding.step, finding.unnumbered)), {}, finding.text});
    groups.removeIf([](const SkippedGroup &g) { return g.rows.isEmpty(); });
    for (SkippedGroup &group : groups)
        group.title = groupTitle(group.kind, int(group.rows.size()));
    return groups;
}

void showSkippedFiles(QWidget *parent, const RunAnalysis &run, const QString &runName)
{
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("skippedFiles"));
    dialog.setWindowTitle(SkippedTexts::tr("Skipped files and tensors — %1").arg(runName));
    auto *layout = new QVBoxLayout(&dialog);
    auto *tree = new QTreeWidget(&dialog);
    tree->setColumnCount(3);
    tree->setHeaderLabels({SkippedTexts::tr("File (within the run)"), SkippedTexts::tr("Tensor"), SkippedTexts::tr("What is wrong, or why it was left out")});
    tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree->setWordWrap(true);
    const QList<SkippedGroup> groups = skippedGroups(run);
    const bool failures = !groups.isEmpty() && groups.first().kind == SkippedGroup::Kind::Failures;
    for (const SkippedGroup &group : groups) {
        auto *top = new QTreeWidgetItem(tree, {group.title});
        top->setFirstColumnSpanned(true);
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        for (const SkippedRow &row : group.rows)
            new QTreeWidgetItem(top, {row.file, row.tensor, row.what});
        // What needs a look is open; files left out as expected stay folded while there are failures.
        top->setExpanded(!(failures && group.kind == SkippedGroup::Kind::LeftOut));
    }
    tree->header()->setStretchLastSection(true);
    for (int column : {0, 1})
        tree->resizeColumnToContents(column);
    tree->setColumnWidth(0, std::min(tree->columnWidth(0), 420));
    layout->addWidget(new QLabel(groups.isEmpty() ? SkippedTexts::tr("Nothing was skipped.") : SkippedTexts::tr("Everything RankScope did not analyse, and why:"), &dialog));
    layout->addWidget(tree);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(980, 440);
    dialog.exec();
}

} // namespace rankscope
