set multiplot layout 2,5 margins 0.07,0.98,0.08,0.84 spacing 0.025,0.17 title "prefork, swap off, desktop article, repetition 1 of each kernel column" font ",13"
set grid
set xrange [0:30.1]
set xtics 10
set xlabel "guest seconds"
unset key
set yrange [0:52]
set ytics 20
set title "stock" noenhanced
unset arrow
unset label
set ylabel "tasks"
set format y "%g"
set arrow from screen 0.218520, screen 0.905 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "black" dt 1
set label "all tasks" at screen 0.218520 + 0.035, screen 0.905 left font ",10"
set arrow from screen 0.359260, screen 0.905 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "dark-green" dt 1
set label "the workload's tasks" at screen 0.359260 + 0.035, screen 0.905 left font ",10"
set label "" at screen 0.500000 + 0.015, screen 0.905 point pt 2 ps 1.2 lc rgb "blue"
set label "OOM kill" at screen 0.500000 + 0.035, screen 0.905 left font ",10"
set arrow from screen 0.640740, screen 0.905 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "red" dt 2
set label "LCA decision" at screen 0.640740 + 0.035, screen 0.905 left font ",10"
prev = 0
plot "prefork-swap-off-article-stock.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 7.4, graph 0 to 7.4, graph 1 nohead dt 2 lc rgb "red"
set arrow from 11.3, graph 0 to 11.3, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "prefork-swap-off-article-lca.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca-2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 7.2, graph 0 to 7.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 11.2, graph 0 to 11.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 15.1, graph 0 to 15.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 18.9, graph 0 to 18.9, graph 1 nohead dt 2 lc rgb "red"
set arrow from 22.7, graph 0 to 22.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 26.5, graph 0 to 26.5, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "prefork-swap-off-article-lca-2005.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca-kill2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 7, graph 0 to 7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 10.6, graph 0 to 10.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 14.4, graph 0 to 14.4, graph 1 nohead dt 2 lc rgb "red"
set arrow from 18.2, graph 0 to 18.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 22, graph 0 to 22, graph 1 nohead dt 2 lc rgb "red"
set arrow from 25.9, graph 0 to 25.9, graph 1 nohead dt 2 lc rgb "red"
set arrow from 29.6, graph 0 to 29.6, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "prefork-swap-off-article-lca-kill2005.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca-score2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 7, graph 0 to 7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 10.7, graph 0 to 10.7, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "prefork-swap-off-article-lca-score2005.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set yrange [0:164]
set ytics 50
set title "stock" noenhanced
unset arrow
unset label
set ylabel "MiB"
set format y "%g"
set arrow from screen 0.359260, screen 0.445 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "purple" dt 1
set label "MemAvailable" at screen 0.359260 + 0.035, screen 0.445 left font ",10"
set arrow from screen 0.500000, screen 0.445 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "orange" dt 1
set label "SwapFree" at screen 0.500000 + 0.035, screen 0.445 left font ",10"
plot "prefork-swap-off-article-stock.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "prefork-swap-off-article-lca.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca-2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "prefork-swap-off-article-lca-2005.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca-kill2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "prefork-swap-off-article-lca-kill2005.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca-score2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "prefork-swap-off-article-lca-score2005.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
unset multiplot
