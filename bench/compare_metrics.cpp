// Compares two metrics CSVs of `rankscope analyze` (the same run on the GPU and on the CPU)
// within the metric contract (docs/metrics.md, "Accuracy"): stable_rank, effective_rank,
// spectral_norm, frobenius_norm within 1e-6 relative; weighted_alpha's log factor likewise (so
// weighted_alpha within what alpha's 1e-3 moves it); compression_pct exact, but for a near-tie of
// τ·Σλ with a partial sum (one step of 100/r, in at most 1% of rows); alpha within 1e-3 for at
// least 99% of rows. The rows must be the same matrices (every column that is not a number
// compared exactly). Other numeric columns are reported when they differ by more than 1e-6
// relative, and do not fail. Exit 0 when within the contract, 1 when not, 2 on unreadable input.
//   compare_metrics A.csv B.csv
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

std::vector<std::string> split(const std::string &line)
{
    std::vector<std::string> cells;
    std::stringstream in(line);
    std::string cell;
    while (std::getline(in, cell, ','))
        cells.push_back(cell);
    if (!line.empty() && line.back() == ',')
        cells.emplace_back();
    return cells;
}

bool read(const char *path, Table &table)
{
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line))
        return false;
    table.header = split(line);
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        table.rows.push_back(split(line));
        if (table.rows.back().size() != table.header.size())
            return false;
    }
    return true;
}

bool number(const std::string &text, double &value)
{
    if (text == "nan" || text == "NaN" || text == "-nan") {
        value = NAN;
        return true;
    }
    char *end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return !text.empty() && end && *end == '\0';
}

bool close(double a, double b, double relative)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));
}

struct Counts {
    int failures = 0, alphaOff = 0, compressionTies = 0, extrasOff = 0;
};

// One row's metric cells: the contract's columns with their tolerances, the others noted.
void compareCell(const std::string &column, const std::string &a, const std::string &b, double alphaA, double alphaB,
                 const std::string &where, Counts &counts)
{
    static const std::set<std::string> relative = {"stable_rank", "effective_rank", "spectral_norm", "frobenius_norm"};
    double x = 0, y = 0;
    if (!number(a, x) || !number(b, y)) {
        if (a != b) {
            std::printf("  %s %s: '%s' vs '%s'\n", where.c_str(), column.c_str(), a.c_str(), b.c_str());
            ++counts.failures;
        }
        return;
    }
    if (relative.count(column)) {
        if (!close(x, y, 1e-6)) {
            std::printf("  %s %s: %.17g vs %.17g\n", where.c_str(), column.c_str(), x, y);
            ++counts.failures;
        }
    } else if (column == "weighted_alpha") {
        // α·log10 λ_max: the log factor within 1e-6, α within what the alpha check allows.
        const double logA = std::isnan(alphaA) || alphaA == 0 ? NAN : x / alphaA, logB = std::isnan(alphaB) || alphaB == 0 ? NAN : y / alphaB;
        const bool ok = (std::isnan(x) && std::isnan(y)) || (close(logA, logB, 1e-6) && std::abs(x - y) <= 1e-3 * std::abs(logB) + 1e-6 * std::abs(y))
                        || std::abs(alphaA - alphaB) > 1e-3; // then counted under alpha
        if (!ok) {
            std::printf("  %s weighted_alpha: %.17g vs %.17g\n", where.c_str(), x, y);
            ++counts.failures;
        }
    } else if (column == "alpha") {
        if (!(std::abs(x - y) <= 1e-3) && !(std::isnan(x) && std::isnan(y)))
            ++counts.alphaOff;
    } else if (column == "compression_pct") {
        if (x != y && !(std::isnan(x) && std::isnan(y)))
            ++counts.compressionTies;
    } else if (!close(x, y, 1e-6)) {
        ++counts.extrasOff;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: compare_metrics A.csv B.csv\n");
        return 2;
    }
    Table a, b;
    if (!read(argv[1], a) || !read(argv[2], b)) {
        std::fprintf(stderr, "compare_metrics: cannot read %s or %s as a metrics CSV\n", argv[1], argv[2]);
        return 2;
    }
    if (a.header != b.header || a.rows.size() != b.rows.size() || a.rows.empty()) {
        std::printf("different tables: %zu and %zu rows, %s headers\n", a.rows.size(), b.rows.size(), a.header == b.header ? "the same" : "different");
        return 1;
    }
    std::map<std::string, size_t> at;
    for (size_t c = 0; c < a.header.size(); ++c)
        at[a.header[c]] = c;
    const size_t alphaColumn = at.count("alpha") ? at["alpha"] : a.header.size();
    Counts counts;
    for (size_t r = 0; r < a.rows.size(); ++r) {
        const std::string where = a.rows[r][0] + "/" + a.rows[r][1] + "/" + a.rows[r][2];
        double alphaA = NAN, alphaB = NAN;
        if (alphaColumn < a.header.size()) {
            number(a.rows[r][alphaColumn], alphaA);
            number(b.rows[r][alphaColumn], alphaB);
        }
        for (size_t c = 0; c < a.header.size(); ++c)
            compareCell(a.header[c], a.rows[r][c], b.rows[r][c], alphaA, alphaB, where, counts);
    }
    const double n = double(a.rows.size());
    const bool alphaOk = counts.alphaOff <= 0.01 * n, tiesOk = counts.compressionTies <= 0.01 * n;
    std::printf("%zu rows: %d outside the contract; alpha off by > 1e-3 in %d (%s); compression_pct differs in %d (%s); "
                "other columns differ by > 1e-6 relative in %d cells (not in the contract)\n",
                a.rows.size(), counts.failures, counts.alphaOff, alphaOk ? "≤ 1%: ok" : "> 1%: FAIL", counts.compressionTies,
                tiesOk ? "near-ties, ≤ 1%: ok" : "> 1%: FAIL", counts.extrasOff);
    return counts.failures == 0 && alphaOk && tiesOk ? 0 : 1;
}
