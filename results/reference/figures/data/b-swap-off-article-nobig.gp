set multiplot layout 2,5 margins 0.07,0.98,0.08,0.84 spacing 0.025,0.17 title "b, swap off, desktop article-nobig, repetition 1 of each kernel column" font ",13"
set grid
set xrange [0:120.1]
set xtics 50
set xlabel "guest seconds"
unset key
set yrange [0:998]
set ytics 200
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
plot "b-swap-off-article-nobig-stock.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 8.1, graph 0 to 8.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 12.9, graph 0 to 12.9, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "b-swap-off-article-nobig-lca.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca-2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 42.2, graph 0 to 42.2, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "b-swap-off-article-nobig-lca-2005.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca-kill2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 21.4, graph 0 to 21.4, graph 1 nohead dt 2 lc rgb "red"
set arrow from 27, graph 0 to 27, graph 1 nohead dt 2 lc rgb "red"
set arrow from 33.5, graph 0 to 33.5, graph 1 nohead dt 2 lc rgb "red"
set arrow from 45.3, graph 0 to 45.3, graph 1 nohead dt 2 lc rgb "red"
set arrow from 57.6, graph 0 to 57.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 60, graph 0 to 60, graph 1 nohead dt 2 lc rgb "red"
set arrow from 61.4, graph 0 to 61.4, graph 1 nohead dt 2 lc rgb "red"
set arrow from 61.5, graph 0 to 61.5, graph 1 nohead dt 2 lc rgb "red"
set arrow from 65, graph 0 to 65, graph 1 nohead dt 2 lc rgb "red"
set arrow from 66.7, graph 0 to 66.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 70.5, graph 0 to 70.5, graph 1 nohead dt 2 lc rgb "red"
set arrow from 71.6, graph 0 to 71.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 76.8, graph 0 to 76.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 76.8, graph 0 to 76.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 77, graph 0 to 77, graph 1 nohead dt 2 lc rgb "red"
set arrow from 77.6, graph 0 to 77.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 77.7, graph 0 to 77.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 77.8, graph 0 to 77.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 78, graph 0 to 78, graph 1 nohead dt 2 lc rgb "red"
set arrow from 78.1, graph 0 to 78.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 82.3, graph 0 to 82.3, graph 1 nohead dt 2 lc rgb "red"
set arrow from 83.1, graph 0 to 83.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 83.6, graph 0 to 83.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 84.1, graph 0 to 84.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 86.6, graph 0 to 86.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 88, graph 0 to 88, graph 1 nohead dt 2 lc rgb "red"
set arrow from 91.3, graph 0 to 91.3, graph 1 nohead dt 2 lc rgb "red"
set arrow from 102.2, graph 0 to 102.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 102.7, graph 0 to 102.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 103.7, graph 0 to 103.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 103.7, graph 0 to 103.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 103.8, graph 0 to 103.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 103.8, graph 0 to 103.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 103.8, graph 0 to 103.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 103.9, graph 0 to 103.9, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.1, graph 0 to 104.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.1, graph 0 to 104.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.2, graph 0 to 104.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.3, graph 0 to 104.3, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.3, graph 0 to 104.3, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.5, graph 0 to 104.5, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.6, graph 0 to 104.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.6, graph 0 to 104.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.7, graph 0 to 104.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.7, graph 0 to 104.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.8, graph 0 to 104.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 104.9, graph 0 to 104.9, graph 1 nohead dt 2 lc rgb "red"
set arrow from 105, graph 0 to 105, graph 1 nohead dt 2 lc rgb "red"
set arrow from 105, graph 0 to 105, graph 1 nohead dt 2 lc rgb "red"
set arrow from 105, graph 0 to 105, graph 1 nohead dt 2 lc rgb "red"
set arrow from 105.5, graph 0 to 105.5, graph 1 nohead dt 2 lc rgb "red"
set arrow from 105.7, graph 0 to 105.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106, graph 0 to 106, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.2, graph 0 to 106.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.2, graph 0 to 106.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.2, graph 0 to 106.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.2, graph 0 to 106.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.3, graph 0 to 106.3, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.6, graph 0 to 106.6, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.7, graph 0 to 106.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.8, graph 0 to 106.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 106.8, graph 0 to 106.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 107.1, graph 0 to 107.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 107.2, graph 0 to 107.2, graph 1 nohead dt 2 lc rgb "red"
set arrow from 107.3, graph 0 to 107.3, graph 1 nohead dt 2 lc rgb "red"
set arrow from 107.7, graph 0 to 107.7, graph 1 nohead dt 2 lc rgb "red"
set arrow from 107.8, graph 0 to 107.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 107.8, graph 0 to 107.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 108, graph 0 to 108, graph 1 nohead dt 2 lc rgb "red"
set arrow from 108.1, graph 0 to 108.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 109.1, graph 0 to 109.1, graph 1 nohead dt 2 lc rgb "red"
set arrow from 112.8, graph 0 to 112.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 112.8, graph 0 to 112.8, graph 1 nohead dt 2 lc rgb "red"
set arrow from 114, graph 0 to 114, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "b-swap-off-article-nobig-lca-kill2005.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set title "lca-score2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
set arrow from 19.5, graph 0 to 19.5, graph 1 nohead dt 2 lc rgb "red"
set arrow from 19.6, graph 0 to 19.6, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "b-swap-off-article-nobig-lca-score2005.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set yrange [0:232]
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
plot "b-swap-off-article-nobig-stock.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "b-swap-off-article-nobig-lca.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca-2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "b-swap-off-article-nobig-lca-2005.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca-kill2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "b-swap-off-article-nobig-lca-kill2005.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
set title "lca-score2005" noenhanced
unset arrow
unset label
unset ylabel
set format y ""
plot "b-swap-off-article-nobig-lca-score2005.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
unset multiplot
