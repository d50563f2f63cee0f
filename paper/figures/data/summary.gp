set multiplot layout 2,1 margins 0.16,0.97,0.094,0.896 spacing 0,0.114 title "Every run by what came of it: a bar per workload, kernel column and desktop, split by outcome" font ",13"
unset border
set tics nomirror scale 0
set style fill solid 1.0 noborder
set title "desktop article"
set xtics ("stock" 0, "lca" 1, "lca-2005" 2, "lca-kill2005" 3, "lca-score2005" 4) rotate by 25 right
set ytics ("leak" 0, "build" 1, "prefork" 2, "folkert" 3, "b" 4, "a" 5)
set xrange [-0.6:4.6]
set yrange [-0.6:5.6]
set key at screen 0.5, screen 0.950 center horizontal maxrows 1 font ",10" samplen 1 width -3
plot "summary-article.dat" u 1:2:3:4:5:6:7 w boxxyerror lc rgb variable notitle, NaN w boxes lc rgb "#1a9850" t "clean, survived", NaN w boxes lc rgb "#fdae61" t "collateral, killed", NaN w boxes lc rgb "#d73027" t "persists", NaN w boxes lc rgb "#40004b" t "stalled", NaN w boxes lc rgb "#d9d9d9" t "inconclusive"
set title "desktop article-nobig"
set xtics ("stock" 0, "lca" 1, "lca-2005" 2, "lca-kill2005" 3, "lca-score2005" 4) rotate by 25 right
set ytics ("leak" 0, "build" 1, "prefork" 2, "folkert, swap" 3, "folkert" 4, "b, swap" 5, "b" 6, "a, swap" 7, "a" 8)
set xrange [-0.6:4.6]
set yrange [-0.6:8.6]
unset key
plot "summary-article-nobig.dat" u 1:2:3:4:5:6:7 w boxxyerror lc rgb variable notitle
unset multiplot
