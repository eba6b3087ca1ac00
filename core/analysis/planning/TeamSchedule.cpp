#include "analysis/planning/TeamSchedule.h"

#include "analysis/planning/AnalysisTeam.h"

#include <QSet>

namespace rankscope {

bool TeamSchedule::leads() const
{
    return !m_team || m_team->leads();
}

int TeamSchedule::size() const
{
    return m_team ? m_team->size() : 1;
}

void TeamSchedule::start()
{
    m_load = QList<double>(size(), 0.0);
    if (m_team)
        m_team->barrier();
}

QList<bool> TeamSchedule::ownItems(const QList<double> &itemCosts)
{
    QList<bool> own(itemCosts.size(), true);
    if (!m_team)
        return own;
    const QList<int> owners = AnalysisTeam::assignByCost(itemCosts, m_load);
    for (qsizetype i = 0; i < owners.size(); ++i)
        own[i] = owners[i] == m_team->rank();
    return own;
}

void TeamSchedule::gather(QList<MatrixResult> &results, RunAnalysis &run, const OwnPart &own, AnalysisProgress &progress,
                          AnalysisProgressModel &model) const
{
    if (!m_team)
        return;
    AnalysisTeam &team = *m_team;
    if (!team.leads()) {
        CheckpointShare share;
        share.results = results;
        share.issues = run.issues.mid(own.issuesFrom);
        share.matricesDone = own.matricesDone;
        share.costSeconds = own.costSeconds;
        share.timings = run.timings - own.timingsBefore;
        team.sendToLeader(share.serialized());
        return;
    }
    // Every member opens the checkpoint and plans it, so each reports the same file-level problems
    // and left-out tensors: said once.
    QSet<QString> said;
    for (qsizetype i = own.issuesFrom; i < run.issues.size(); ++i)
        said.insert(run.issues[i].text());
    for (int member = 1; member < team.size(); ++member) {
        const std::optional<CheckpointShare> share = CheckpointShare::fromBytes(team.receiveFrom(member));
        if (!share) {
            run.issues.append({progress.currentFile, {}, QStringLiteral("rank %1 sent results this build cannot read (is every rank running the same rankscope?)").arg(member), true});
            continue;
        }
        results.append(share->results);
        for (const AnalysisIssue &issue : share->issues)
            if (!said.contains(issue.text())) {
                said.insert(issue.text());
                run.issues.append(issue);
            }
        progress.matricesDone += share->matricesDone;
        model.addDone(share->costSeconds);
        run.timings += share->timings;
    }
}

} // namespace rankscope
